/** MIME types of the file kinds Obsidian accepts (docs/obsidian.md, File kinds). */
const MIME: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  canvas: "application/json",
  base: "application/yaml",
  avif: "image/avif",
  bmp: "image/bmp",
  gif: "image/gif",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  svg: "image/svg+xml",
  webp: "image/webp",
  flac: "audio/flac",
  m4a: "audio/mp4",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  wav: "audio/wav",
  webm: "video/webm",
  "3gp": "video/3gpp",
  mkv: "video/x-matroska",
  mov: "video/quicktime",
  mp4: "video/mp4",
  ogv: "video/ogg",
  pdf: "application/pdf",
  json: "application/json",
  txt: "text/plain",
  csv: "text/csv",
};

export function mimeType(path: string): string {
  const dot = path.lastIndexOf(".");
  return (dot >= 0 && MIME[path.slice(dot + 1).toLowerCase()]) || "application/octet-stream";
}

/** Attachments Obsidian opens (images, audio, video, PDF) and the plain data files indx serves: what attachment_write accepts. */
export const ATTACHMENT_EXTENSIONS: readonly string[] = Object.keys(MIME).filter((ext) => !["md", "markdown", "canvas", "base"].includes(ext));

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}
