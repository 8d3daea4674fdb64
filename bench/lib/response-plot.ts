// Renders measured frequency responses as an SVG (turned into PNG by sharp in bench/audio.ts).

export interface Series {
  name: string;
  color: string;
  points: [freqHz: number, db: number][];
  dashed?: boolean;
}

export interface Panel {
  title: string;
  xMaxHz: number;
  yMinDb: number;
  yMaxDb: number;
  series: Series[];
  /** Vertical guides (band edges). */
  vLines: { hz: number; label: string }[];
  /** Horizontal guides (targets). */
  hLines: { db: number; label: string }[];
}

const WIDTH = 1200;
const PANEL_HEIGHT = 430;
const MARGIN = { left: 70, right: 290, top: 40, bottom: 45 };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function panelSvg(panel: Panel, top: number): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (hz: number): number => MARGIN.left + (hz / panel.xMaxHz) * plotW;
  const y = (db: number): number =>
    top +
    MARGIN.top +
    ((panel.yMaxDb - Math.max(panel.yMinDb, Math.min(panel.yMaxDb, db))) / (panel.yMaxDb - panel.yMinDb)) * plotH;
  const parts: string[] = [];
  parts.push(`<text x="${MARGIN.left}" y="${top + 25}" font-size="17" font-weight="bold">${esc(panel.title)}</text>`);
  parts.push(
    `<rect x="${MARGIN.left}" y="${top + MARGIN.top}" width="${plotW}" height="${plotH}" fill="#fff" stroke="#444"/>`,
  );
  for (let db = panel.yMaxDb; db >= panel.yMinDb; db -= 20) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(db)}" y2="${y(db)}" stroke="#e4e4e4"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${y(db) + 4}" font-size="12" text-anchor="end">${db}</text>`);
  }
  for (let hz = 0; hz <= panel.xMaxHz; hz += 2000) {
    parts.push(
      `<line x1="${x(hz)}" x2="${x(hz)}" y1="${top + MARGIN.top}" y2="${top + MARGIN.top + plotH}" stroke="#f0f0f0"/>`,
    );
    parts.push(
      `<text x="${x(hz)}" y="${top + MARGIN.top + plotH + 18}" font-size="12" text-anchor="middle">${hz / 1000}k</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${top + PANEL_HEIGHT - 5}" font-size="13" text-anchor="middle">input tone frequency (Hz)</text>`,
  );
  parts.push(
    `<text x="18" y="${top + MARGIN.top + plotH / 2}" font-size="13" text-anchor="middle" transform="rotate(-90 18 ${top + MARGIN.top + plotH / 2})">level re. input (dB)</text>`,
  );
  panel.vLines.forEach((v, i) => {
    parts.push(
      `<line x1="${x(v.hz)}" x2="${x(v.hz)}" y1="${top + MARGIN.top}" y2="${top + MARGIN.top + plotH}" stroke="#999" stroke-dasharray="4 4"/>`,
    );
    parts.push(
      `<text x="${x(v.hz) + 3}" y="${top + MARGIN.top + 14 + 14 * i}" font-size="11" fill="#666">${esc(v.label)}</text>`,
    );
  });
  for (const h of panel.hLines) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(h.db)}" y2="${y(h.db)}" stroke="#c00" stroke-dasharray="6 3"/>`,
    );
    parts.push(
      `<text x="${MARGIN.left + plotW - 4}" y="${y(h.db) - 4}" font-size="11" fill="#c00" text-anchor="end">${esc(h.label)}</text>`,
    );
  }
  panel.series.forEach((s, i) => {
    const pts = s.points.map(([f, db]) => `${x(f).toFixed(1)},${y(db).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="${s.dashed === true ? 1.5 : 2.2}"${s.dashed === true ? ' stroke-dasharray="5 3"' : ''}/>`,
    );
    if (s.dashed !== true)
      for (const [f, db] of s.points)
        parts.push(`<circle cx="${x(f).toFixed(1)}" cy="${y(db).toFixed(1)}" r="2.5" fill="${s.color}"/>`);
    const ly = top + MARGIN.top + 10 + i * 22;
    const lx = MARGIN.left + plotW + 15;
    parts.push(
      `<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"${s.dashed === true ? ' stroke-dasharray="5 3"' : ''}/>`,
    );
    parts.push(`<text x="${lx + 30}" y="${ly + 4}" font-size="12">${esc(s.name)}</text>`);
  });
  return parts.join('\n');
}

export function responseSvg(panels: Panel[], footer: string[]): string {
  const height = panels.length * PANEL_HEIGHT + 16 * footer.length + 14;
  const body = panels.map((p, i) => panelSvg(p, i * PANEL_HEIGHT)).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">
<rect width="100%" height="100%" fill="#fafafa"/>
${body}
${footer.map((line, i) => `<text x="${MARGIN.left}" y="${panels.length * PANEL_HEIGHT + 12 + 16 * i}" font-size="11" fill="#555">${esc(line)}</text>`).join('\n')}
</svg>`;
}
