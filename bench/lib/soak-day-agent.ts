// The day soak's agent beside the call (bench/soak-day.ts, issue #55 item 1): an MCP client (the
// official SDK v2 over Streamable HTTP at /mcp) that lists the tools and calls a read-only one every
// few seconds, and frames pushed to POST /frame. Read-only tools only (call_status, read_notes): a
// tool that speaks would corrupt the soak's word counting. The fake Gemini keeps an image without
// ending a turn, so frames never make it speak. Calls fail while the core is down (the kill -9): they
// are counted, the client is made again, and the loop goes on.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import sharp from 'sharp';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SoakCallContext } from './soak-call.ts';

export interface DayAgentCounts {
  agent: { sessions: number; listTools: number; toolCalls: number; toolCallsFailed: number; lastError?: string };
  frames: { pushed: number; refused: number; skippedQuiet: number; lastRefusal?: string };
}

export interface DayAgent {
  counts: DayAgentCounts;
  /** In a quiet stretch: no frames (one would wake the parked model the quiet point measures). */
  quiet: boolean;
  stop(): Promise<void>;
}

const READ_ONLY_TOOLS = [
  { name: 'call_status', arguments: {} },
  { name: 'read_notes', arguments: { limit: 5 } },
] as const;

/** The seeded wait: `seconds` ± 20 %. */
export function jittered(seconds: number, random: () => number): number {
  return seconds * 1000 * (0.8 + 0.4 * random());
}

export function startDayAgent(call: SoakCallContext, options: { everyS: number; framesEveryS: number }): DayAgent {
  const until = { done: false };
  const agent: DayAgent = {
    counts: {
      agent: { sessions: 0, listTools: 0, toolCalls: 0, toolCallsFailed: 0 },
      frames: { pushed: 0, refused: 0, skippedQuiet: 0 },
    },
    quiet: false,
    stop: async () => {
      until.done = true;
      await Promise.all([polling, framing]);
    },
  };
  const nap = async (ms: number) => {
    const end = Date.now() + ms;
    while (!until.done && Date.now() < end) await sleep(Math.min(500, end - Date.now()));
  };
  const polling = (async () => {
    const a = agent.counts.agent;
    let client: Client | null = null;
    for (let i = 0; !until.done; i++) {
      await nap(jittered(options.everyS, call.random));
      if (until.done) break;
      try {
        if (!client) {
          const transport = new StreamableHTTPClientTransport(new URL(`${call.base}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${call.token}` } },
          });
          const fresh = new Client({ name: 'lvb-soak-day', version: '1.0.0' });
          await fresh.connect(transport);
          client = fresh;
          a.sessions++;
        }
        await client.listTools();
        a.listTools++;
        await client.callTool({ ...READ_ONLY_TOOLS[i % READ_ONLY_TOOLS.length]! });
        a.toolCalls++;
      } catch (error) {
        a.toolCallsFailed++;
        a.lastError = `${new Date().toISOString()}: ${error instanceof Error ? error.message : String(error)}`.slice(
          0,
          300,
        );
        // The core may have restarted (its sessions went with it): a new client next time.
        await client?.close().catch(() => undefined);
        client = null;
      }
    }
    await client?.close().catch(() => undefined);
  })();
  const framing = (async () => {
    const f = agent.counts.frames;
    const png = await sharp({ create: { width: 320, height: 180, channels: 3, background: '#204080' } })
      .png()
      .toBuffer();
    while (!until.done) {
      await nap(jittered(options.framesEveryS, call.random));
      if (until.done) break;
      if (agent.quiet) {
        f.skippedQuiet++;
        continue;
      }
      try {
        const res = await fetch(`${call.base}/frame`, {
          method: 'POST',
          headers: { authorization: `Bearer ${call.token}`, 'content-type': 'image/png' },
          body: new Uint8Array(png),
        });
        const text = await res.text();
        if (res.ok) f.pushed++;
        else {
          f.refused++;
          const code = /"code"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '';
          f.lastRefusal = `${new Date().toISOString()}: ${res.status} ${code}`;
        }
      } catch (error) {
        f.refused++;
        f.lastRefusal = `${new Date().toISOString()}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  })();
  return agent;
}
