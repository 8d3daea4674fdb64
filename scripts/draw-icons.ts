// Draws our own app and tray icons (SVG → PNG with sharp) into resources/. Run after changing a
// shape: `node scripts/draw-icons.ts`. The PNGs are committed so packaging needs no drawing step.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

const out = path.join(import.meta.dirname, '..', 'resources');

/** A microphone with two sound arcs: the app's mark. `fg` is the stroke colour. */
function microphone(fg: string, strokeWidth: number): string {
  return `
    <rect x="38" y="14" width="24" height="44" rx="12" fill="${fg}"/>
    <path d="M27 46 a23 23 0 0 0 46 0" fill="none" stroke="${fg}" stroke-width="${strokeWidth}" stroke-linecap="round"/>
    <line x1="50" y1="69" x2="50" y2="84" stroke="${fg}" stroke-width="${strokeWidth}" stroke-linecap="round"/>
    <line x1="36" y1="86" x2="64" y2="86" stroke="${fg}" stroke-width="${strokeWidth}" stroke-linecap="round"/>`;
}

function appIcon(): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="1024" height="1024">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#3b5bdb"/><stop offset="1" stop-color="#0b7285"/></linearGradient></defs>
    <rect x="4" y="4" width="92" height="92" rx="22" fill="url(#g)"/>
    <g transform="translate(14 10) scale(0.72)">${microphone('#ffffff', 7)}</g>
    <path d="M77 36 q8 14 0 28" fill="none" stroke="#a5d8ff" stroke-width="4.5" stroke-linecap="round"/>
    <path d="M85 28 q14 22 0 44" fill="none" stroke="#a5d8ff" stroke-width="4.5" stroke-linecap="round" opacity="0.7"/>
  </svg>`;
}

/** Every state the tray shows (main/app/tray-menu.ts picks one). */
export const TRAY_VARIANTS = ['idle', 'connecting', 'listening', 'speaking', 'muted', 'error'] as const;
type TrayVariant = (typeof TRAY_VARIANTS)[number];

const OUTLINE = '#1b1b1b';
const LIGHT = '#f1f3f5';

/** The state's badge in the lower right, each with a dark rim so it reads on light and dark panels. */
const BADGES: Record<TrayVariant, string> = {
  idle: '',
  // Three amber dots: on the way.
  connecting: `<circle cx="76" cy="78" r="22" fill="#f59f00" stroke="${OUTLINE}" stroke-width="5"/>
    <circle cx="65" cy="78" r="4" fill="${OUTLINE}"/><circle cx="76" cy="78" r="4" fill="${OUTLINE}"/><circle cx="87" cy="78" r="4" fill="${OUTLINE}"/>`,
  // Green dot: in a call, the model hears you.
  listening: `<circle cx="76" cy="78" r="22" fill="#2f9e44" stroke="${OUTLINE}" stroke-width="5"/>`,
  // Blue dot with sound arcs: the model is speaking.
  speaking: `<circle cx="76" cy="78" r="22" fill="#1c7ed6" stroke="${OUTLINE}" stroke-width="5"/>
    <path d="M70 68 q8 10 0 20" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round"/>
    <path d="M79 63 q12 15 0 30" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round"/>`,
  // A red slash across the microphone: the model hears nobody.
  muted: `<line x1="14" y1="14" x2="86" y2="86" stroke="${OUTLINE}" stroke-width="17" stroke-linecap="round"/>
    <line x1="14" y1="14" x2="86" y2="86" stroke="#e03131" stroke-width="9" stroke-linecap="round"/>`,
  // Red dot with "!".
  error: `<circle cx="76" cy="78" r="22" fill="#e03131" stroke="${OUTLINE}" stroke-width="5"/>
    <rect x="73" y="63" width="6" height="17" rx="3" fill="#fff"/><circle cx="76" cy="87" r="3.5" fill="#fff"/>`,
};

/**
 * Tray: a light microphone with a dark outline (the outline is the same shape drawn wider underneath),
 * so it reads on light and dark panels alike, plus the state's badge.
 */
export function trayIcon(variant: TrayVariant): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
    <g>${microphone(OUTLINE, 17)}<rect x="34" y="10" width="32" height="52" rx="16" fill="${OUTLINE}"/></g>
    <g>${microphone(LIGHT, 9)}</g>${BADGES[variant]}</svg>`;
}

/** Every tray icon at 32 and 64 px on a light and a dark panel, labelled: docs/screenshots/tray-states.png. */
function contactSheet(): string {
  const cell = 150;
  const rows = [
    { name: 'light panel', bg: '#f3f3f3', fg: '#222' },
    { name: 'dark panel', bg: '#202124', fg: '#eee' },
  ];
  const width = 140 + cell * TRAY_VARIANTS.length;
  const height = 40 + rows.length * cell;
  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#ffffff"/>`];
  TRAY_VARIANTS.forEach((variant, i) => {
    parts.push(
      `<text x="${140 + i * cell + cell / 2}" y="26" font-family="DejaVu Sans" font-size="16" text-anchor="middle" fill="#222">${variant}</text>`,
    );
  });
  rows.forEach((row, r) => {
    const y = 40 + r * cell;
    parts.push(`<rect x="0" y="${y}" width="${width}" height="${cell}" fill="${row.bg}"/>`);
    parts.push(
      `<text x="12" y="${y + cell / 2 + 5}" font-family="DejaVu Sans" font-size="15" fill="${row.fg}">${row.name}</text>`,
    );
    TRAY_VARIANTS.forEach((variant, i) => {
      const x = 140 + i * cell;
      const inner = trayIcon(variant)
        .replace(/^<svg[^>]*>/, '')
        .replace(/<\/svg>$/, '');
      parts.push(`<svg x="${x + 14}" y="${y + 43}" width="64" height="64" viewBox="0 0 100 100">${inner}</svg>`);
      parts.push(`<svg x="${x + 94}" y="${y + 59}" width="32" height="32" viewBox="0 0 100 100">${inner}</svg>`);
    });
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
}

async function render(svg: string, size: number, file: string): Promise<void> {
  await sharp(Buffer.from(svg), { density: 600 }).resize(size, size).png().toFile(path.join(out, file));
}

mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'icon.svg'), appIcon());
// The dashboard's favicon is the same mark.
writeFileSync(path.join(out, '..', 'renderer', 'icon.svg'), appIcon());
await render(appIcon(), 1024, 'icon.png');
await render(appIcon(), 256, 'icon-256.png');
for (const variant of TRAY_VARIANTS) {
  await render(trayIcon(variant), 16, `tray-${variant}.png`);
  await render(trayIcon(variant), 32, `tray-${variant}@2x.png`);
  await render(trayIcon(variant), 64, `tray-${variant}@4x.png`);
}
const sheetDir = path.join(out, '..', 'docs', 'screenshots');
mkdirSync(sheetDir, { recursive: true });
await sharp(Buffer.from(contactSheet())).png().toFile(path.join(sheetDir, 'tray-states.png'));
process.stdout.write(`icons written to ${out}\n`);
