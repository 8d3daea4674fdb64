// A request refused for the caller's own mistake or state, not a failure of ours: a specific code
// and the HTTP-style status it answers with (4xx, or 503 when something is not configured here).
// Routes, the tool registry (`isCallerRefusal`) and the MCP tools pass it on as such.
import { CodedError } from './coded-error.ts';
export class Refusal<Code extends string = string> extends CodedError<Code> {
  readonly status: number;

  constructor(code: Code, message: string, status: number) {
    super(code, message);
    this.status = status;
  }
}
