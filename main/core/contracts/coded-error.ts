// The one base of the errors that carry a stable code: routes map it to an HTTP answer, tools to a
// tool error, the CLI to words and an exit code, and callers match on `code` rather than on a class or
// a message. `code` is usually a snake_case word; a WebSocket failure carries the close code.
export class CodedError<Code extends string | number | null = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}
