// The rules of an agent's question to the owner, without a call: whose words count, when, and
// what a yes and a no are.
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../../main/core/event-hub.ts';
import { silentLogger } from '../../../main/core/log/logger.ts';
import { ownerDecisions, type OwnerQuestionOutcome } from '../../../main/core/mcp/owner-questions.ts';

const OWNER = '100000000000000001';
const APPROVER = '100000000000000002';
const GUEST = '100000000000000003';

function setup(options: { inCall?: boolean; ownerOnlyVoice?: boolean } = {}) {
  const notes: string[] = [];
  const spoken: string[] = [];
  const decisions = ownerDecisions({
    hub: new EventHub(),
    notes: { append: (event) => (notes.push(event.text), { ...event, id: notes.length, ts: 0 }) as never },
    logger: silentLogger(),
    ownerId: OWNER,
    approvers: [APPROVER],
    ownerOnlyVoice: () => options.ownerOnlyVoice ?? false,
    speak: async (text) => {
      if (options.inCall === false) return { delivered: false, reason: 'no live call' };
      spoken.push(text);
      return { delivered: true };
    },
  });
  return { ...decisions, notes, spoken };
}

/** Lets the question be handed over (the speak promise) before anyone answers. */
const handedOver = () => new Promise((resolve) => setImmediate(resolve));

describe('owner questions', () => {
  it("takes the owner's yes, split over fragments, and not a guest's", async () => {
    const { questions, notes, spoken } = setup();
    const outcome = questions.ask({ from: 'the build agent', question: 'Push the branch?' });
    await handedOver();
    expect(spoken[0]).toContain('"Push the branch?"');
    questions.heard('Yes, do it.', GUEST);
    expect(questions.pendingCount).toBe(1);
    expect(notes.some((n) => n.includes('was not taken'))).toBe(true);
    questions.heard('Oh', OWNER);
    questions.heard(' yeah.', OWNER);
    await expect(outcome).resolves.toEqual<OwnerQuestionOutcome>({ answer: 'yes', by: 'voice', asked_aloud: true });
    expect(notes.at(-1)).toBe('The owner answered yes (voice) to the build agent: Push the branch?');
  });

  it('a no anywhere wins; a named approver may answer; unattributed words only when the owner alone can speak', async () => {
    const first = setup();
    const no = first.questions.ask({ from: 'a', question: 'Deploy?' });
    await handedOver();
    first.questions.heard('Yes... no, not yet', APPROVER);
    await expect(no).resolves.toMatchObject({ answer: 'no', by: 'voice' });

    const shared = setup({ ownerOnlyVoice: false });
    const unattributed = shared.questions.ask({ from: 'a', question: 'Deploy?' });
    await handedOver();
    shared.questions.heard('yes', undefined);
    expect(shared.questions.pendingCount).toBe(1);
    shared.approvals.decide(shared.approvals.pending()[0]!.id, false, 'dashboard');
    await expect(unattributed).resolves.toMatchObject({ answer: 'no', by: 'dashboard' });

    const alone = setup({ ownerOnlyVoice: true });
    const heard = alone.questions.ask({ from: 'a', question: 'Deploy?' });
    await handedOver();
    alone.questions.heard('sure', undefined);
    await expect(heard).resolves.toMatchObject({ answer: 'yes', by: 'voice' });
  });

  it('with no call the question is not spoken, voice does not answer it, and the dashboard does', async () => {
    const { questions, approvals, spoken } = setup({ inCall: false });
    const outcome = questions.ask({ from: 'the review agent', question: 'Merge?' });
    await handedOver();
    expect(spoken).toEqual([]);
    questions.heard('yes', OWNER);
    const [pending] = approvals.pending();
    expect(pending).toMatchObject({ tool: 'ask_owner', server: 'the review agent', args: 'Merge?', status: 'pending' });
    approvals.decide(pending!.id, true, 'dashboard');
    await expect(outcome).resolves.toEqual({ answer: 'yes', by: 'dashboard', asked_aloud: false });
  });
});
