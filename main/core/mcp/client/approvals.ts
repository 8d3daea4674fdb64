// Owner approvals for MCP tools under the `ask` policy. A request waits here until the owner
// decides — by voice (the model relays "yes"/"no" through the `mcp_approval` tool, checked against
// what the owner was heard saying) or on the dashboard (a sidecar route) — or until it expires.
// Every change is published on /events as `mcp_approval`.
import { randomBytes } from 'node:crypto';
import type { McpApprovalView } from '../../api-types.ts';
import type { EventHub } from '../../event-hub.ts';
import { CodedError } from '../../contracts/coded-error.ts';

export const APPROVAL_TTL_MS = 5 * 60_000;

export type ApprovalDecision = 'approved' | 'refused' | 'expired';

const APPROVAL_ERROR_STATUS = { unknown_approval: 404, already_decided: 409, owner_not_heard: 403 } as const;
export type ApprovalErrorCode = keyof typeof APPROVAL_ERROR_STATUS;

/** A refusal with its HTTP meaning (the registry and the sidecar route answer it as such). */
export class ApprovalError extends CodedError<ApprovalErrorCode> {
  readonly status: number;
  constructor(code: ApprovalErrorCode, message: string) {
    super(code, message);
    this.status = APPROVAL_ERROR_STATUS[code];
  }
}

interface PendingApproval {
  view: McpApprovalView;
  resolve: (decision: ApprovalDecision) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ApprovalBroker {
  readonly #pending = new Map<string, PendingApproval>();
  /** Decided approvals, newest last, so a late second answer gets `already_decided`, not `unknown`. */
  readonly #decided = new Map<string, McpApprovalView>();
  readonly #hub: EventHub;
  readonly #ttlMs: number;

  constructor(options: { hub: EventHub; ttlMs?: number }) {
    this.#hub = options.hub;
    this.#ttlMs = options.ttlMs ?? APPROVAL_TTL_MS;
  }

  /** Opens a request; the promise settles with the owner's decision (or `expired`). */
  request(input: { tool: string; server: string; args: string }): { id: string; decision: Promise<ApprovalDecision> } {
    const id = `ap-${randomBytes(4).toString('hex')}`;
    const now = Date.now();
    const view: McpApprovalView = {
      id,
      tool: input.tool,
      server: input.server,
      args: input.args,
      status: 'pending',
      created_at: now / 1000,
      expires_at: (now + this.#ttlMs) / 1000,
    };
    const decision = new Promise<ApprovalDecision>((resolve) => {
      const timer = setTimeout(() => this.#settle(id, 'expired'), this.#ttlMs);
      timer.unref();
      this.#pending.set(id, { view, resolve, timer });
    });
    this.#publish(view);
    return { id, decision };
  }

  get(id: string): McpApprovalView | undefined {
    return this.#pending.get(id)?.view ?? this.#decided.get(id);
  }

  pending(): McpApprovalView[] {
    return [...this.#pending.values()].map((p) => p.view);
  }

  decide(id: string, approved: boolean, by: 'voice' | 'dashboard'): McpApprovalView {
    if (!this.#pending.has(id)) {
      const decided = this.#decided.get(id);
      if (decided) throw new ApprovalError('already_decided', `approval ${id} was already ${decided.status}`);
      throw new ApprovalError('unknown_approval', `no approval request ${JSON.stringify(id)}`);
    }
    return this.#settle(id, approved ? 'approved' : 'refused', by)!;
  }

  /** The call ended: nobody is left to answer, so open requests are refused. */
  expireAll(): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, 'expired');
  }

  #settle(id: string, decision: ApprovalDecision, by?: 'voice' | 'dashboard'): McpApprovalView | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    const view: McpApprovalView = {
      ...pending.view,
      status: decision,
      ...(by ? { decided_by: by } : {}),
      decided_at: Date.now() / 1000,
    };
    this.#decided.set(id, view);
    if (this.#decided.size > 200) this.#decided.delete(this.#decided.keys().next().value!);
    this.#publish(view);
    pending.resolve(decision);
    return view;
  }

  #publish(view: McpApprovalView): void {
    this.#hub.publish({ type: 'mcp_approval', data: view });
  }
}
