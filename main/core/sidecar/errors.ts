// Every sidecar error leaves as `{ "error": { "code", "message" } }`. Route handlers throw HttpError
// for client mistakes; anything else is a bug and becomes a 500 with a generic message.
import type { ApiErrorBody } from '../api-types.ts';
import { CodedError } from '../contracts/coded-error.ts';

export class HttpError extends CodedError {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  /** Per-field problems in plain words (form fields: shown next to the field). */
  readonly fields: Record<string, string> | undefined;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
    fields?: Record<string, string>,
  ) {
    super(code, message);
    this.statusCode = statusCode;
    this.headers = headers;
    this.fields = fields;
  }
}

export function errorBody(code: string, message: string, fields?: Record<string, string>): ApiErrorBody {
  return { error: fields ? { code, message, fields } : { code, message } };
}
