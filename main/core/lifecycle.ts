// The lifecycle contract every capability of a process follows (issue 38, item 1): `start(deps)` opens
// what the capability needs and returns `{ api, stop, health? }`. A composition root (core.ts, the
// Electron shell, the headless shell) is a list of `await life.start(capability, deps)` lines in
// dependency order; the runner keeps ONE stop list, so a start that throws at step k stops steps
// k-1..1 and shutdown stops everything, both newest first, within one time budget. Stopping twice
// is safe (the second call waits for the first). Kept free of any capability's types so every
// floor of main/core may implement it.
import type { Logger } from 'pino';
import type { HealthReport } from './api-types.ts';
import type { HealthInputs } from './health-verdict.ts';

/** How long a stop may still take: the time left in the shutdown budget when it is called. */
export interface StopBudget {
  /** Milliseconds left (0 once spent); a stop that waits on something bounds the wait by it. */
  left(): number;
}

/**
 * What a capability adds to `/health`: fields of the report (merged one level deep, in start order)
 * and inputs to the verdict (`status`/`reasons`, health-verdict.ts). Read at each request.
 */
export interface HealthPart {
  report?: Partial<Omit<HealthReport, 'status' | 'reasons'>>;
  verdict?: Partial<HealthInputs>;
}

/** A started capability: what it offers the ones after it, how it stops, what it reports. */
export interface Running<Api> {
  api: Api;
  /** Closes what start opened; called once, newest capability first, even after a failed start. */
  stop(budget: StopBudget): unknown;
  health?(): HealthPart;
}

export interface Capability<Deps, Api> {
  /** Names the capability in logs (a stop that overran its budget) and in the lifecycle table. */
  readonly name: string;
  /**
   * Opens the capability. A start that throws must have closed what it opened itself; the runner
   * closes the capabilities started before it.
   */
  start(deps: Deps): Running<Api> | Promise<Running<Api>>;
}

/** True when `work` settled within `ms` (it keeps running otherwise). */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  return Promise.race([work.then(() => true), timeUp]).finally(() => clearTimeout(timer));
}

interface Started {
  name: string;
  stop: Running<unknown>['stop'];
  health?: () => HealthPart;
}

/** Starts capabilities in order and stops them in reverse, once, within `budgetMs`. */
export class Lifecycle {
  private readonly started: Started[] = [];
  private stopping: Promise<void> | null = null;

  private readonly options: { budgetMs: number; log: Logger };

  constructor(options: { budgetMs: number; log: Logger }) {
    this.options = options;
  }

  async start<Deps, Api>(capability: Capability<Deps, Api>, deps: Deps): Promise<Api> {
    if (this.stopping) throw new Error(`${capability.name}: not started, the process is stopping`);
    const running = await capability.start(deps);
    this.started.push({
      name: capability.name,
      stop: (budget) => running.stop(budget),
      health: running.health ? () => running.health!() : undefined,
    });
    return running.api;
  }

  /** Names of the capabilities started so far, in start order. */
  names(): string[] {
    return this.started.map((s) => s.name);
  }

  /** The `/health` contributions of what runs now, in start order. */
  healthParts(): HealthPart[] {
    return this.started.flatMap((s) => (s.health ? [s.health()] : []));
  }

  /**
   * Stops every started capability, newest first. Each stop is awaited up to the time left in the
   * budget; one that overruns is logged and left running while the next ones stop (a stop whose
   * budget is spent is still called, so its synchronous closing happens). Never throws.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    const end = Date.now() + this.options.budgetMs;
    const budget: StopBudget = { left: () => Math.max(0, end - Date.now()) };
    for (const entry of [...this.started].reverse()) {
      const stopping = Promise.resolve()
        .then(() => entry.stop(budget))
        .catch((err: unknown) => this.options.log.warn({ err, capability: entry.name }, 'stop failed'));
      if (!(await settlesWithin(stopping, budget.left())))
        this.options.log.warn({ capability: entry.name }, 'did not stop within the shutdown budget');
    }
  }
}
