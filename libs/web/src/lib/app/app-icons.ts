import { crc32, deflateSync } from 'node:zlib';

/**
 * The web app's icons, drawn here rather than shipped as files: a speech bubble on the app's blue. The SVG is
 * for browsers that take one; the PNGs (192 and 512 pixels, which installable web apps need) are drawn from the
 * same shapes at start-up into memory.
 */
const BLUE = [0x1f, 0x4e, 0x79] as const;
const WHITE = [0xff, 0xff, 0xff] as const;

export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<rect width="100" height="100" rx="20" fill="#1f4e79"/>
<rect x="20" y="24" width="60" height="40" rx="10" fill="#fff"/>
<path d="M34 62 L30 78 L48 62 Z" fill="#fff"/>
</svg>
`;

/** Whether the point (x, y), in a 100×100 square, is inside the bubble (its body or its tail). */
function inBubble(x: number, y: number): boolean {
  const inRounded = (left: number, top: number, width: number, height: number, radius: number) => {
    if (x < left || x > left + width || y < top || y > top + height) return false;
    const cx = Math.min(Math.max(x, left + radius), left + width - radius);
    const cy = Math.min(Math.max(y, top + radius), top + height - radius);
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
  };
  if (inRounded(20, 24, 60, 40, 10)) return true;
  // The tail: the triangle (34,62) (30,78) (48,62).
  if (y < 62 || y > 78) return false;
  const t = (y - 62) / 16;
  return x >= 34 - 4 * t && x <= 48 - 18 * t;
}

/** A square PNG of `size` pixels: the bubble on blue (a full-bleed square, so that masks may crop it). */
export function iconPng(size: number): Buffer {
  const row = 1 + size * 3;
  const pixels = Buffer.alloc(row * size);
  for (let py = 0; py < size; py++) {
    pixels[py * row] = 0; // filter: none
    for (let px = 0; px < size; px++) {
      const colour = inBubble(((px + 0.5) * 100) / size, ((py + 0.5) * 100) / size) ? WHITE : BLUE;
      pixels.set(colour, py * row + 1 + px * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, sum]);
}
