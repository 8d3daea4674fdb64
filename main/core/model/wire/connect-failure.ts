// Why opening a model socket failed, with the close code (or HTTP status) when the service gave
// one. Every provider's open path throws it and the shared fallback loop reads it. The key is never
// in here (callers scrub the reason first).
import { CodedError } from '../../contracts/coded-error.ts';
export class ConnectFailure extends CodedError<number | null> {
  readonly reason: string;
  constructor(code: number | null, reason: string) {
    super(code, code === null ? reason : `closed ${code}: ${reason}`);
    this.reason = reason;
  }
}
