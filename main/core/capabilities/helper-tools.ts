// The helper tools the model, the CLI and MCP agents share (docs/tools.md): the call's notes (only
// the call being recorded, or the recorded call a hand-off names by call_id), files under the agent
// home, and notifications.
import type { Config } from '../config/index.ts';
import type { Capability } from '../lifecycle.ts';
import type { NotesStore } from '../notes/notes-store.ts';
import type { NotesLog } from '../notes/notes-log.ts';
import type { Notifier } from '../notify/dispatcher.ts';
import { registerHelperTools } from '../tools/helpers/index.ts';
import type { ToolRegistry } from '../tools/registry.ts';

export interface HelperToolsDeps {
  config: Config;
  tools: ToolRegistry;
  notes: NotesLog;
  archive: NotesStore;
  notifier: Notifier;
}

export const helperToolsCapability: Capability<HelperToolsDeps, void> = {
  name: 'helper tools',
  start({ config, tools, notes, archive, notifier }) {
    registerHelperTools(tools, {
      currentCall: () => notes.currentCallNotes(500),
      callNotes: (id) => archive.read(id),
      agentHome: config.paths.agentHome,
      notify: (req) => notifier.deliver(req),
    });
    return { api: undefined, stop: () => undefined };
  },
};
