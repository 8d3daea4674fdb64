// The owner's prompt for MCP tools under the `ask` policy: each pending request (from
// GET /mcp/approvals, then `mcp_approval` events) shows what the model wants to run and with which
// arguments, with Allow / Refuse. A decision made by voice or elsewhere removes it here too.
import type { McpApprovalView } from '../main/core/api-types.ts';
import { api, friendlyMessage } from './api.ts';
import { byId, h, setBusy, toast } from './dom.ts';

export class ApprovalPrompt {
  readonly #host = byId('approvals');
  readonly #pending = new Map<string, McpApprovalView>();

  async refresh(): Promise<void> {
    try {
      const { approvals } = await api.approvals();
      this.#pending.clear();
      for (const a of approvals) this.#pending.set(a.id, a);
      this.#render();
    } catch {
      // Not signed in or unreachable: the page's banner already says so.
    }
  }

  onEvent(view: McpApprovalView): void {
    if (view.status === 'pending') this.#pending.set(view.id, view);
    else this.#pending.delete(view.id);
    this.#render();
  }

  async #decide(view: McpApprovalView, approved: boolean, button: HTMLButtonElement): Promise<void> {
    setBusy(button, true);
    try {
      await api.decideApproval(view.id, approved);
      this.#pending.delete(view.id);
      this.#render();
      toast(approved ? `Allowed ${view.tool}.` : `Refused ${view.tool}.`);
    } catch (err) {
      setBusy(button, false);
      toast(friendlyMessage(err), 'error');
      void this.refresh();
    }
  }

  #render(): void {
    const items = [...this.#pending.values()].sort((a, b) => a.created_at - b.created_at);
    this.#host.hidden = items.length === 0;
    this.#host.replaceChildren(
      ...items.map((view) => {
        const allow: HTMLButtonElement = h(
          'button',
          { class: 'primary', type: 'button', onclick: () => void this.#decide(view, true, allow) },
          'Allow',
        );
        const refuse: HTMLButtonElement = h(
          'button',
          { type: 'button', onclick: () => void this.#decide(view, false, refuse) },
          'Refuse',
        );
        return h(
          'div',
          { class: 'approval', 'data-approval-id': view.id },
          h(
            'p',
            {},
            'The model wants to run ',
            h('strong', {}, view.tool),
            ` (MCP server ${view.server}) with `,
            h('code', {}, view.args),
          ),
          h('div', { class: 'approval-actions' }, allow, refuse),
        );
      }),
    );
  }
}
