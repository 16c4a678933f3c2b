import QRCode from 'qrcode';

/** A PNG (smaller than the SVG for these sizes, and what any QR reader takes), scaled up crisply by the page. */
export const qrCodeDataUri = (text: string): Promise<string> => QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
