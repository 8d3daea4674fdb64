// Endpoint URLs as configured (http(s) or ws(s)) → the WebSocket base the sockets dial.

/** http → ws, https → wss; ws/wss kept. Rejects anything else (a config error, said at start-up). */
export function toWebSocketBase(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  else if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:')
    throw new Error(`unsupported endpoint scheme ${parsed.protocol}`);
  return parsed.toString().replace(/\/+$/, '');
}
