// Media encoding: what a message may hold besides text, turned into bytes that cross the
// channel as base64. Blobs (and Files) cross as they are; image sources are drawn and
// cross as PNG; AudioBuffers cross as 16-bit WAV.

export function isBlob(v) {
  return typeof Blob === "function" && v instanceof Blob;
}

const IMAGE_SOURCES = ["ImageBitmap", "HTMLImageElement", "SVGImageElement", "HTMLCanvasElement", "OffscreenCanvas", "HTMLVideoElement", "VideoFrame", "ImageData"];

export function isImageSource(v) {
  return IMAGE_SOURCES.some((name) => typeof globalThis[name] === "function" && v instanceof globalThis[name]);
}

export function isAudioBuffer(v) {
  return typeof AudioBuffer === "function" && v instanceof AudioBuffer;
}

// wav encodes an AudioBuffer as a WAV Blob: 16-bit PCM, channels interleaved.
export function wav(buffer) {
  const channels = buffer.numberOfChannels;
  const frames = buffer.length;
  const out = new DataView(new ArrayBuffer(44 + frames * channels * 2));
  const ascii = (at, s) => [...s].forEach((c, i) => out.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  out.setUint32(4, 36 + frames * channels * 2, true);
  ascii(8, "WAVEfmt ");
  out.setUint32(16, 16, true); // the fmt chunk's size
  out.setUint16(20, 1, true); // PCM
  out.setUint16(22, channels, true);
  out.setUint32(24, buffer.sampleRate, true);
  out.setUint32(28, buffer.sampleRate * channels * 2, true); // bytes a second
  out.setUint16(32, channels * 2, true); // bytes a frame
  out.setUint16(34, 16, true); // bits a sample
  ascii(36, "data");
  out.setUint32(40, frames * channels * 2, true);
  const data = Array.from({ length: channels }, (_, c) => buffer.getChannelData(c));
  for (let f = 0, at = 44; f < frames; f++) {
    for (let c = 0; c < channels; c++, at += 2) {
      const x = Math.max(-1, Math.min(1, data[c][f]));
      out.setInt16(at, x < 0 ? x * 0x8000 : x * 0x7fff, true);
    }
  }
  return new Blob([out.buffer], { type: "audio/wav" });
}

// png draws an image source and encodes it as a PNG Blob. What the browser refuses (an
// <img> not yet loaded, a canvas tainted by another origin) rejects with its own error.
export async function png(source) {
  const bitmap = await createImageBitmap(source);
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext("2d").drawImage(bitmap, 0, 0);
    return await canvas.convertToBlob({ type: "image/png" });
  } finally {
    bitmap.close();
  }
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64(buf) {
  const b = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let s = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < b.length ? B64[n & 63] : "=");
  }
  return s;
}

// ---------------------------------------------------------------- the stash

