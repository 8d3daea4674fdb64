// The sidecar's wire shapes that are not in api-types.ts because they are inferred from the schema
// (or built by the module) that produces them: the one place clients (the dashboard, the CLI, this
// client) take them from, type-only, so no client reaches into a route module. What is in
// api-types.ts is taken from there.
export type { CallSummary } from '../notes/notes-store.ts';
export type { ScheduleEntryView, ScheduleListPage } from '../notify/scheduler.ts';
export type { SecretKey, SettingKey, SettingsPatch, SettingsValues } from '../settings/schema.ts';
export type { SecretState } from '../settings/store.ts';
export type { DiscordCheckResult, GuildDirectory } from '../setup/discord-check.ts';
export type { ModelCheckResult } from '../setup/model-check.ts';
export type { SettingsResponse } from '../sidecar/routes/settings.ts';
export type { SetupSecretKey, SetupStateResponse } from '../sidecar/routes/setup.ts';
