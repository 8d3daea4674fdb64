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

/** Tray: a white microphone (readable on dark panels) with a status dot for connected/error. */
function trayIcon(variant: 'idle' | 'connected' | 'error'): string {
  const dot = variant === 'idle' ? '' : `<circle cx="76" cy="76" r="22" fill="${variant === 'connected' ? '#2f9e44' : '#e03131'}" stroke="#1b1b1b" stroke-width="5"/>`;
  const mark = variant === 'error' ? '<rect x="73" y="62" width="6" height="17" rx="3" fill="#fff"/><circle cx="76" cy="86" r="3.5" fill="#fff"/>' : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
    <g opacity="${variant === 'idle' ? 0.92 : 1}">${microphone('#f1f3f5', 9)}</g>${dot}${mark}</svg>`;
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
for (const variant of ['idle', 'connected', 'error'] as const) {
  await render(trayIcon(variant), 16, `tray-${variant}.png`);
  await render(trayIcon(variant), 32, `tray-${variant}@2x.png`);
  await render(trayIcon(variant), 64, `tray-${variant}@4x.png`);
}
process.stdout.write(`icons written to ${out}\n`);
