// Electron side of the tray: renders the menu model from tray-menu.ts. On Linux a changed menu is
// only picked up after setContextMenu() again, so every render sets it anew.
import path from 'node:path';
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import {
  trayIconFor,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayIconVariant,
  type TrayState,
} from './tray-menu.ts';

export class AppTray {
  readonly #tray: Tray;
  readonly #icons: Record<TrayIconVariant, NativeImage>;
  readonly #onAction: (action: TrayAction) => void;

  constructor(resourcesDir: string, onAction: (action: TrayAction) => void, onClick: () => void) {
    // Every icon is a light microphone with a dark outline and a coloured badge, readable on light
    // and dark panels alike, so none is a macOS template image (those would lose the badge colour).
    const load = (variant: TrayIconVariant) =>
      nativeImage.createFromPath(path.join(resourcesDir, `tray-${variant}.png`));
    this.#icons = {
      idle: load('idle'),
      connecting: load('connecting'),
      listening: load('listening'),
      speaking: load('speaking'),
      muted: load('muted'),
      error: load('error'),
    };
    this.#onAction = onAction;
    this.#tray = new Tray(this.#icons.idle);
    // Some Linux desktops never emit click for tray icons; the menu carries "Open dashboard" too.
    this.#tray.on('click', onClick);
  }

  render(state: TrayState): void {
    const items: MenuItemConstructorOptions[] = trayMenuModel(state).map((item) => {
      switch (item.kind) {
        case 'status':
          return { label: item.label, enabled: false };
        case 'separator':
          return { type: 'separator' };
        case 'checkbox':
          return {
            type: 'checkbox',
            label: item.label,
            enabled: item.enabled,
            checked: item.checked,
            accelerator: item.accelerator,
            registerAccelerator: false,
            click: () => this.#onAction(item.action),
          };
        case 'action':
          return {
            label: item.label,
            enabled: item.enabled,
            accelerator: item.accelerator,
            registerAccelerator: false,
            click: () => this.#onAction(item.action),
          };
      }
    });
    this.#tray.setContextMenu(Menu.buildFromTemplate(items));
    this.#tray.setImage(this.#icons[trayIconFor(state)]);
    this.#tray.setToolTip(trayTooltip(state));
  }

  destroy(): void {
    this.#tray.destroy();
  }
}
