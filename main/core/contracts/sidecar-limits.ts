// Request size limits of the sidecar: the server and its error answers enforce them, and the MCP
// server describes them to agents (so they live on the bottom floor, not in sidecar/).
export const JSON_BODY_LIMIT = 64 * 1024;
export const IMAGE_BODY_LIMIT = 8 * 1024 * 1024;
/** Longest path parameter (a tool name, a schedule id) the router accepts; longer → 414. */
export const MAX_PARAM_LENGTH = 200;
