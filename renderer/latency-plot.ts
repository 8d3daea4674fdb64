// A small SVG line plot of ingress/egress p50/p95 over the last samples (one per metrics event).
// The axes are HTML beside the SVG (the stretched SVG would distort text): the y-axis in ms with as
// many decimals as the scale needs, the x-axis as the time the samples span.
import { formatMs, formatSpan, niceCeiling, type LatencyPoint } from './format.ts';

const MAX_SAMPLES = 90;
const WIDTH = 320;
const HEIGHT = 110;
const PAD_LEFT = 2;
const PAD_TOP = 6;
const PAD_BOTTOM = 6;
const SVG_NS = 'http://www.w3.org/2000/svg';

const SERIES: { key: keyof LatencyPoint; cls: string }[] = [
  { key: 'ingressP95', cls: 's-in95' },
  { key: 'egressP95', cls: 's-out95' },
  { key: 'ingressP50', cls: 's-in50' },
  { key: 'egressP50', cls: 's-out50' },
];

export class LatencyPlot {
  readonly #svg: SVGSVGElement;
  readonly #empty: HTMLElement;
  readonly #yAxis: HTMLElement;
  readonly #xAxis: HTMLElement;
  readonly #samples: LatencyPoint[] = [];
  /** When each sample arrived (ms), for the x-axis span. */
  readonly #times: number[] = [];

  constructor(svg: SVGSVGElement, empty: HTMLElement, yAxis: HTMLElement, xAxis: HTMLElement) {
    this.#svg = svg;
    this.#empty = empty;
    this.#yAxis = yAxis;
    this.#xAxis = xAxis;
    this.#svg.parentElement!.hidden = true;
  }

  add(point: LatencyPoint, atMs: number = Date.now()): void {
    if (SERIES.every((s) => point[s.key] === null)) return;
    this.#samples.push(point);
    this.#times.push(atMs);
    if (this.#samples.length > MAX_SAMPLES) {
      this.#samples.shift();
      this.#times.shift();
    }
    // A line needs two samples; until then say what is happening.
    if (this.#samples.length < 2) {
      this.#empty.textContent = 'Collecting latency samples…';
      return;
    }
    this.#draw();
  }

  #draw(): void {
    const values = this.#samples.flatMap((p) => SERIES.map((s) => p[s.key])).filter((v): v is number => v !== null);
    const max = niceCeiling(Math.max(...values, 1));
    const plotHeight = HEIGHT - PAD_TOP - PAD_BOTTOM;
    // Spread the samples over the full width until the window is full, then scroll.
    const slots = Math.max(this.#samples.length - 1, 1);
    const x = (i: number) => PAD_LEFT + (i / slots) * (WIDTH - PAD_LEFT - 4);
    const y = (v: number) => PAD_TOP + plotHeight - (v / max) * plotHeight;
    const nodes: SVGElement[] = [];
    for (const fraction of [0, 0.5, 1]) {
      const gy = y(max * fraction);
      nodes.push(svg('line', { x1: PAD_LEFT, x2: WIDTH - 4, y1: gy, y2: gy, class: 'grid-line' }));
    }
    const labels = [max, max / 2, 0].map((v) => `${formatMs(v)} ms`);
    [...this.#yAxis.children].forEach((el, i) => (el.textContent = labels[i] ?? ''));
    this.#xAxis.textContent = `${this.#samples.length} samples over the last ${formatSpan((this.#times.at(-1)! - this.#times[0]!) / 1000)} (newest on the right)`;
    this.#xAxis.hidden = false;
    for (const series of SERIES) {
      const points = this.#samples
        .map((p, i) => (p[series.key] === null ? null : `${x(i).toFixed(1)},${y(p[series.key]!).toFixed(1)}`))
        .filter((p): p is string => p !== null);
      if (points.length) nodes.push(svg('polyline', { points: points.join(' '), class: series.cls }));
    }
    this.#svg.replaceChildren(...nodes);
    this.#svg.parentElement!.hidden = false;
    this.#empty.hidden = true;
  }
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}
