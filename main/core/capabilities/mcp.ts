// Agents' yes/no questions and MCP tool approvals, asked aloud and answered only by the owner or a
// named approver (docs/mcp.md), and the MCP servers' tools offered to the model (the MCP client SDK
// loads only when servers are configured). Started before the bridge, which passes them what the
// owner was heard saying; they speak into the call through the port.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { EventHub } from '../event-hub.ts';
import type { Capability } from '../lifecycle.ts';
import { moduleLogger } from '../log/logger.ts';
import type { McpModelTools } from '../mcp/client/model-tools.ts';
import { ownerDecisions } from '../mcp/owner-questions.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import { redactText } from '../tools/helpers/index.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { AllowedSpeakers } from '../voice/allowed-speakers.ts';
import type { CallPort } from './call-port.ts';
import { PACKAGE_VERSION } from './process.ts';

export interface McpDeps {
  config: Config;
  logger: Logger;
  hub: EventHub;
  notes: NotesLog;
  tools: ToolRegistry;
  allowedSpeakers: AllowedSpeakers;
  call: CallPort;
}

export type McpApi = ReturnType<typeof ownerDecisions> & {
  /** Null without configured MCP servers. */
  modelTools: McpModelTools | null;
  /** A question or an approval waits for the owner's spoken answer (the call does not park meanwhile). */
  waitingForOwner(): boolean;
  /** What the owner (or another speaker) was just heard saying: a spoken approval or answer. */
  heard(text: string, speaker: string | undefined): void;
};

export const mcpCapability: Capability<McpDeps, McpApi> = {
  name: 'mcp',
  async start({ config, logger, hub, notes, tools, allowedSpeakers, call }) {
    const ownerOnlyVoice = (): boolean => allowedSpeakers.ownerOnly;
    const decisions = ownerDecisions({
      hub,
      notes,
      logger: moduleLogger(logger, 'owner-questions'),
      ownerId: config.discord.ownerId,
      approvers: config.mcp.approvers,
      ownerOnlyVoice,
      speak: (text) => call.speakSoon(text),
    });
    const { approvals, questions, mayAnswer } = decisions;
    const modelTools =
      config.mcp.servers.length > 0
        ? (await import('../mcp/client/model-tools.ts')).startMcpModelTools({
            servers: config.mcp.servers,
            registry: tools,
            hub,
            notes,
            logger: moduleLogger(logger, 'mcp-client'),
            clientVersion: PACKAGE_VERSION,
            redact: redactText,
            // A late tool result waits for an idle moment in the conversation, up to two minutes.
            deliverToModel: (text) => call.speakSoon(text),
            ownerId: config.discord.ownerId,
            ownerOnlyVoice,
            approvals,
            ownerQuestions: questions,
            mayAnswer,
          })
        : null;
    return {
      api: {
        ...decisions,
        modelTools,
        waitingForOwner: () => questions.pendingCount > 0 || approvals.pending().length > 0,
        heard: (text, speaker) => [modelTools, questions].forEach((listener) => listener?.heard(text, speaker)),
      },
      stop: () => modelTools?.close(),
    };
  },
};
