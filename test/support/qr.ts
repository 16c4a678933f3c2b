/** Reads QR codes back, as a customer's phone would: PNG pixels through a QR decoder. */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

/** The text of the QR code in a PNG; throws when there is none to read. */
export function decodeQrPng(png: Buffer): string {
  const image = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (!code) throw new Error(`No QR code found in a ${image.width}x${image.height} image`);
  return code.data;
}

/** The text of the QR code in a `data:image/png;base64,…` URI. */
export function decodeQrDataUri(uri: string): string {
  const base64 = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(uri)?.[1];
  if (base64 === undefined) throw new Error(`Not a PNG data URI: ${uri.slice(0, 40)}…`);
  return decodeQrPng(Buffer.from(base64, 'base64'));
}
