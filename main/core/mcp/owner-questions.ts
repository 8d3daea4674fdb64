// The owner's voice as the approval screen for agents. An agent's yes/no question — from an agent
// on our MCP server (the `ask_owner` tool, `POST /ask-owner`) or from an MCP server the model uses
// (elicitation in 2025-era MCP, an embedded one in a 2026-07-28 `input_required` result) — is put
// to the owner aloud in the call; the answer is taken only from the owner's own transcribed words
// (or an approver the settings name), never from another speaker's and never from the model's.
// With no call up, the question waits on the dashboard (the approval prompt, `GET /mcp/approvals`)
// and is answered there. Every question, answer and ignored answer lands in the notes.
import type { Logger } from 'pino';
import type { NotesSink } from '../ports.ts';
import type { EventHub } from '../event-hub.ts';
import { ApprovalBroker } from './client/approvals.ts';

/** A spoken yes, in the languages the owner is likely to answer in. */
export const AFFIRMATIVE =
  /\b(yes|yeah|yep|yup|sure|ok|okay|go ahead|do it|approved?|allow(ed)?|confirm(ed)?|ja|oui|sí|si|da|hai)\b/i;
/** A spoken no; a no anywhere in the answer wins over a yes ("yes... no, wait"). */
export const NEGATIVE = /\b(no|nope|not|don'?t|stop|cancel|deny|denied|refuse[d]?|nein|non)\b/i;

export type OwnerAnswer = 'yes' | 'no' | 'no_answer';

export interface OwnerQuestionOutcome {
  answer: OwnerAnswer;
  /** How the answer came (absent when none did). */
  by?: 'voice' | 'dashboard';
  /** Whether the question was put to the owner in a live call (else it waited on the dashboard only). */
  asked_aloud: boolean;
}

export interface OwnerQuestionsOptions {
  approvals: ApprovalBroker;
  notes: NotesSink;
  logger: Logger;
  /** Hands the text to the live model as its next turn; says whether a call took it. */
  speak: (text: string) => Promise<{ delivered: boolean; reason?: string }>;
  /** Whether this transcribed speaker may answer (the owner, or an approver the settings name). */
  mayAnswer: (speaker: string | undefined) => boolean;
}

export interface OwnerQuestions {
  ask(input: { from: string; question: string }): Promise<OwnerQuestionOutcome>;
  /** An input transcription fragment as it arrives, with who was speaking. */
  heard(text: string, speaker: string | undefined): void;
  readonly pendingCount: number;
}

interface OpenQuestion {
  id: string;
  from: string;
  question: string;
  /** Set once the question reached the call: only words heard after it count. */
  aloud: boolean;
  /** The approvers' words since it was asked, joined (a short answer can arrive in fragments). */
  words: string;
}

const QUESTION_MAX_CHARS = 500;

export function createOwnerQuestions(options: OwnerQuestionsOptions): OwnerQuestions {
  const { approvals, notes, logger } = options;
  const open: OpenQuestion[] = [];

  return {
    get pendingCount() {
      return open.length;
    },

    async ask({ from, question }) {
      const text = question.trim().slice(0, QUESTION_MAX_CHARS);
      const { id, decision } = approvals.request({ tool: 'ask_owner', server: from, args: text });
      const entry: OpenQuestion = { id, from, question: text, aloud: false, words: '' };
      open.push(entry);
      notes.append({ kind: 'note', text: `${from} asked the owner: ${text}` });
      const spoken = await options
        .speak(
          `An agent (${from}) asks the owner a yes-or-no question: "${text}". Ask the owner this out loud now and wait for their answer; do not answer it yourself.`,
        )
        .catch((err: unknown) => {
          logger.warn({ err }, 'an agent question could not be handed to the model');
          return { delivered: false, reason: 'hand-over failed' };
        });
      // Only words heard after the question reached the call count (heard() skips it until then).
      entry.aloud = spoken.delivered;
      if (!spoken.delivered)
        logger.info({ reason: spoken.reason, id }, 'agent question waits on the dashboard (not asked aloud)');
      const outcome = await decision;
      open.splice(open.indexOf(entry), 1);
      const view = approvals.get(id);
      const answer: OwnerAnswer = outcome === 'approved' ? 'yes' : outcome === 'refused' ? 'no' : 'no_answer';
      const by = view?.decided_by;
      notes.append({
        kind: 'note',
        text:
          answer === 'no_answer'
            ? `No answer to ${from}'s question in time: ${text}`
            : `The owner answered ${answer} (${by}) to ${from}: ${text}`,
      });
      return { answer, ...(by ? { by } : {}), asked_aloud: entry.aloud };
    },

    heard(text, speaker) {
      // The oldest question asked aloud gets the answer: one question at a time in a conversation.
      const question = open.find((q) => q.aloud);
      if (!question) return;
      if (!options.mayAnswer(speaker)) {
        if (AFFIRMATIVE.test(text) || NEGATIVE.test(text))
          notes.append({
            kind: 'note',
            text: `An answer from ${speaker ?? 'an unattributed voice'} to ${question.from}'s question was not taken: only the owner answers agents.`,
          });
        return;
      }
      question.words += text;
      const no = NEGATIVE.test(question.words);
      if (!no && !AFFIRMATIVE.test(question.words)) return;
      try {
        approvals.decide(question.id, !no, 'voice');
      } catch (err) {
        // Decided meanwhile on the dashboard: that answer stands.
        logger.debug({ err }, 'spoken answer after the question was decided');
      }
    },
  };
}

/**
 * The core's one broker for owner decisions (model tools under `ask` and agents' questions, listed
 * together on the dashboard) and the questions put to the owner through it. Who may answer by
 * voice: the owner, the approvers the settings name, and an unattributed voice only when nobody
 * but the owner can reach the model.
 */
export function ownerDecisions(input: {
  hub: EventHub;
  notes: NotesSink;
  logger: Logger;
  ownerId: string | undefined;
  approvers: readonly string[];
  ownerOnlyVoice: () => boolean;
  speak: OwnerQuestionsOptions['speak'];
}): { approvals: ApprovalBroker; questions: OwnerQuestions; mayAnswer: (speaker: string | undefined) => boolean } {
  const approvals = new ApprovalBroker({ hub: input.hub });
  const mayAnswer = (speaker: string | undefined): boolean =>
    speaker !== undefined ? speaker === input.ownerId || input.approvers.includes(speaker) : input.ownerOnlyVoice();
  return {
    approvals,
    mayAnswer,
    questions: createOwnerQuestions({
      approvals,
      notes: input.notes,
      logger: input.logger,
      speak: input.speak,
      mayAnswer,
    }),
  };
}
