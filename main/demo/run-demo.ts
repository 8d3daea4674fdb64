// `npm run demo` / `live-voice-bridge demo`: a whole simulated call — fake Discord, fake Gemini, a
// fake owner who speaks every few seconds — with no accounts and no internet. Prints the dashboard
// login URL and the live transcript; Ctrl-C ends it. `--once` plays one exchange and exits (tests).
import { parseArgs } from 'node:util';
import type { NoteEvent } from '../core/api-types.ts';
import { isLiveProviderName, LIVE_PROVIDERS } from '../core/config/index.ts';
import { startSimulatedCall, type SimulatedCall } from './simulated-call.ts';

const UTTERANCE_SECONDS = 2;
const TURN_EVERY_MS = 9_000;

function formatNote(note: NoteEvent): string {
  const time = new Date(note.ts * 1000).toLocaleTimeString();
  const who = note.kind === 'output_transcript' ? 'model' : note.kind === 'input_transcript' ? 'owner' : note.kind;
  return `[${time}] ${who.padEnd(8)} ${note.text}`;
}

export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { once: { type: 'boolean' }, port: { type: 'string' }, provider: { type: 'string' } } });
  const port = values.port !== undefined ? Number(values.port) : Number(process.env.DISCORD_VOICE_LIVE_PORT ?? 18943);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`demo: --port must be a port number, got ${JSON.stringify(values.port)}\n`);
    return 2;
  }

  const provider = values.provider ?? 'gemini';
  if (!isLiveProviderName(provider)) {
    process.stderr.write(`demo: --provider must be one of ${LIVE_PROVIDERS.join(', ')}, got ${JSON.stringify(values.provider)}\n`);
    return 2;
  }

  let call: SimulatedCall;
  try {
    call = await startSimulatedCall({ port, provider });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`demo: port ${port} is in use (is the app already running?). Try: npm run demo -- --port 18950\n`);
      return 2;
    }
    throw err;
  }

  const out = (line: string) => process.stdout.write(line + '\n');
  out('Live Voice Bridge demo — everything below is simulated on 127.0.0.1; no accounts, no internet.');
  out(`  fake Discord REST  ${call.discord.apiBaseUrl}`);
  out(`  fake Gemini Live   ${call.gemini.url}`);
  out(`  fake OpenAI        ${call.openai.url}  (Realtime)`);
  out(`  live model         ${provider} (switch per call: DISCORD_VOICE_LIVE_PROVIDER or the dashboard settings)`);
  out(`  sidecar            ${call.core.sidecarUrl}  (token file: ${call.core.tokenFile})`);
  out(`  dashboard          ${call.core.loginUrl()}`);
  out('');

  let replies = 0;
  let resolveFirstReply: () => void = () => undefined;
  const firstReply = new Promise<void>((resolve) => (resolveFirstReply = resolve));
  const unsubscribe = call.core.hub.subscribe((event) => {
    if (event.type !== 'note') return;
    out(formatNote(event.data));
    if (event.data.kind === 'output_transcript') {
      replies += 1;
      resolveFirstReply();
    }
  });

  const joined = await fetch(`${call.core.sidecarUrl}/join`, { method: 'POST', headers: call.auth });
  if (!joined.ok) {
    process.stderr.write(`demo: could not start the call: ${await joined.text()}\n`);
    await call.close();
    return 1;
  }

  let timer: NodeJS.Timeout | undefined;
  const speak = () => void call.ownerSpeaks(UTTERANCE_SECONDS).catch((err: unknown) => process.stderr.write(`demo: fake owner could not speak: ${String(err)}\n`));
  speak();

  let code = 0;
  if (values.once) {
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 20_000).unref());
    if ((await Promise.race([firstReply, timeout])) === 'timeout') {
      process.stderr.write('demo: no reply from the fake model within 20 s\n');
      code = 1;
    }
  } else {
    timer = setInterval(speak, TURN_EVERY_MS);
    out('(the fake owner speaks every 9 s; open the dashboard URL above; Ctrl-C to stop)');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  }

  clearInterval(timer);
  unsubscribe();
  await fetch(`${call.core.sidecarUrl}/stop`, { headers: call.auth }).catch(() => undefined);
  out(`demo finished: ${replies} model repl${replies === 1 ? 'y' : 'ies'}.`);
  await call.close();
  return code;
}
