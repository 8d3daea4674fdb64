// The sidecar's answers to client mistakes that are not a route's own HttpError: fastify's errors
// (body too large, wrong content type, multipart limits), the router's (a path it cannot route) and
// Node's HTTP parser's (a request that is not valid HTTP), each mapped to a status and a specific
// code in the uniform `{ error: { code, message } }` shape.
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { errorBody } from './errors.ts';
import { IMAGE_BODY_LIMIT, MAX_PARAM_LENGTH } from '../contracts/sidecar-limits.ts';

/** On every answer (the server's onSend hook), and set by hand on the few sent before any hook can run. */
export const RESPONSE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/**
 * Before routing, fastify answers a path it cannot route in its own shape: a bad percent-encoding
 * (FST_ERR_BAD_URL) or a path parameter over maxParamLength (FST_ERR_MAX_PARAM_LENGTH). The path is
 * not echoed back (it is the client's, and may be long).
 */
export function routingErrorReply(error: FastifyError, _request: unknown, reply: FastifyReply): void {
  // No route context yet, so the onSend hook does not run: its headers are set here.
  reply.headers({ ...RESPONSE_HEADERS, 'cache-control': 'no-store' });
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply
      .code(414)
      .send(errorBody('path_param_too_long', `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`));
  } else if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send(errorBody('invalid_url', 'the path has an invalid percent-encoding'));
  } else {
    void reply.code(400).send(errorBody('bad_request', 'the request could not be routed'));
  }
}

/** Node's HTTP parser errors → status and code; the request never reached fastify. */
const CONNECTION_ERRORS: Record<string, [number, string, string]> = {
  HPE_INVALID_METHOD: [400, 'unknown_method', 'the HTTP method is not one this server understands'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'the request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request took too long to arrive'],
};

/**
 * A request Node's HTTP parser refuses (an unknown method such as FOO, broken framing, headers too
 * large) never becomes a fastify request: answer it on the raw socket, in the sidecar's error shape,
 * and close the connection (the parser cannot continue on it).
 */
export function clientConnectionError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  // As Node's own handler: nothing to say to a gone client, and no raw bytes into a connection whose
  // previous (keep-alive) response is still being written: that would corrupt it. Just close.
  const inFlight = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const [status, code, message] = CONNECTION_ERRORS[err.code ?? ''] ?? [
    400,
    'malformed_request',
    'the request is not valid HTTP',
  ];
  this.log.debug({ code: err.code }, 'sidecar refused a malformed request');
  const body = JSON.stringify(errorBody(code, message));
  socket.end(
    [
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Bad Request'}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      ...Object.entries({ ...RESPONSE_HEADERS, 'cache-control': 'no-store' }).map(
        ([name, value]) => `${name}: ${value}`,
      ),
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

export function clientErrorCode(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE': // @fastify/multipart: a file part over its fileSize limit
      return 'payload_too_large';
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'too_many_parts';
    case 'FST_PROTO_VIOLATION':
    case 'FST_MP_PREMATURE_CLOSE':
      return 'invalid_multipart';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported_media_type';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'empty_body';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'invalid_json';
    case 'FST_ERR_VALIDATION':
      return 'invalid_request';
    default:
      return error instanceof SyntaxError ? 'invalid_json' : 'bad_request';
  }
}

export function clientErrorMessage(error: FastifyError): string {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'unsupported Content-Type for this route';
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'request body is too large';
  if (error.code === 'FST_REQ_FILE_TOO_LARGE') return `image is larger than ${IMAGE_BODY_LIMIT} bytes`;
  if (error.code === 'FST_PARTS_LIMIT' || error.code === 'FST_FILES_LIMIT' || error.code === 'FST_FIELDS_LIMIT')
    return 'send one file part (and at most a few fields)';
  return error.message;
}
