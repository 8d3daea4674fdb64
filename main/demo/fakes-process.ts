// The demo's child process: the fake Discord and fake Gemini, so that the demo's own process (and
// what the dashboard, /health and the OS show for it) is the core alone. Talks to the parent over
// the IPC channel (fakes-protocol.ts); ends when told to, or when the parent goes away.
import { rmSync } from 'node:fs';
import { startFakeServices } from './fake-services.ts';
import { ToFakesSchema, type FromFakes } from './fakes-protocol.ts';

const send = (message: FromFakes) => process.send?.(message);

if (!process.send) {
  process.stderr.write('fakes-process.ts runs as the demo\'s child process (live-voice-bridge demo)\n');
  process.exit(2);
}

// Ctrl-C reaches the whole terminal process group: the parent decides when the fakes stop, after
// the core has hung up, so the call ends the way a real one does.
process.on('SIGINT', () => undefined);

// The parent trusts the test CA itself; this process only serves with it.
const fakes = await startFakeServices({ trustCertificates: false });
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await fakes.close();
  rmSync(fakes.info.caPath, { force: true });
  if (process.connected) process.disconnect();
  process.exit(0);
};

process.on('message', (raw) => {
  const parsed = ToFakesSchema.safeParse(raw);
  if (!parsed.success) {
    send({ type: 'failed', message: `bad message from the demo: ${parsed.error.message}` });
    return;
  }
  const message = parsed.data;
  if (message.type === 'close') void close();
  else {
    fakes.ownerSpeaks(message.seconds).then(
      () => send({ type: 'spoken', id: message.id }),
      (err: unknown) => send({ type: 'failed', id: message.id, message: String(err) }),
    );
  }
});
process.on('disconnect', () => void close());
process.on('SIGTERM', () => void close());

send({ type: 'ready', info: fakes.info });
