// A small SVG line plot of ingress/egress p50/p95 over the last samples (one per metrics event).
import { niceCeiling, type LatencyPoint } from './format.ts';

const MAX_SAMPLES = 90;
const WIDTH = 320;
const HEIGHT = 110;
const PAD_LEFT = 26;
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
  readonly #samples: LatencyPoint[] = [];

  constructor(svg: SVGSVGElement, empty: HTMLElement) {
    this.#svg = svg;
    this.#empty = empty;
    this.#svg.style.display = 'none';
  }

  add(point: LatencyPoint): void {
    if (SERIES.every((s) => point[s.key] === null)) return;
    this.#samples.push(point);
    if (this.#samples.length > MAX_SAMPLES) this.#samples.shift();
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
      const label = svg('text', { x: 2, y: gy + 3, class: 'axis' });
      label.textContent = String(Math.round(max * fraction));
      nodes.push(label);
    }
    for (const series of SERIES) {
      const points = this.#samples
        .map((p, i) => (p[series.key] === null ? null : `${x(i).toFixed(1)},${y(p[series.key]!).toFixed(1)}`))
        .filter((p): p is string => p !== null);
      if (points.length) nodes.push(svg('polyline', { points: points.join(' '), class: series.cls }));
    }
    this.#svg.replaceChildren(...nodes);
    this.#svg.style.display = '';
    this.#empty.hidden = true;
  }
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}
