// What the offline package check reads out of an app.asar: its files, and which native binaries
// (Node addons and the shared libraries they link, e.g. sharp's libvips) are packed inside the
// archive, where neither Node's loader nor the dynamic linker can open them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface HeaderNode {
  files?: Record<string, HeaderNode>;
  size?: number;
  unpacked?: boolean;
  link?: string;
}

export interface AsarFile {
  /** Path inside the archive, '/'-separated, without a leading slash. */
  path: string;
  size: number;
  unpacked: boolean;
}

const NATIVE_BINARY = /\.node$|\.so(\.\d+)*$|\.dylib$|\.dll$/;

export function isNativeBinary(file: string): boolean {
  return NATIVE_BINARY.test(file);
}

/** Every file in an asar header (directories walked, links left out). */
export function filesOfHeader(root: HeaderNode): AsarFile[] {
  const out: AsarFile[] = [];
  const walk = (node: HeaderNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      const at = prefix ? `${prefix}/${name}` : name;
      if (child.files) walk(child, at);
      else if (child.link === undefined)
        out.push({ path: at, size: child.size ?? 0, unpacked: child.unpacked === true });
    }
  };
  walk(root, '');
  return out;
}

/** Native binaries that were left inside the archive (these would fail to load in the packaged app). */
export function packedNativeBinaries(files: AsarFile[]): string[] {
  return files.filter((f) => isNativeBinary(f.path) && !f.unpacked).map((f) => f.path);
}

export function readAsarFiles(archive: string): AsarFile[] {
  const asar = require('@electron/asar') as { getRawHeader: (archive: string) => { header: HeaderNode } };
  return filesOfHeader(asar.getRawHeader(archive).header);
}

export function extractAsar(archive: string, destination: string): void {
  const asar = require('@electron/asar') as { extractAll: (archive: string, dest: string) => void };
  asar.extractAll(archive, destination);
}
