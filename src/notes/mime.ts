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

/**
 * Other files a vault holds that indx reports and serves but does not write (attachment_write
 * keeps to MIME above): office documents, e-books, data and archives, by their registered types.
 */
const REPORTED: Record<string, string> = {
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  ts: "text/plain",
  tsv: "text/tab-separated-values",
  ics: "text/calendar",
  vcf: "text/vcard",
  rtf: "application/rtf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  odt: "application/vnd.oasis.opendocument.text",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  odp: "application/vnd.oasis.opendocument.presentation",
  epub: "application/epub+zip",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  "7z": "application/x-7z-compressed",
  heic: "image/heic",
  tif: "image/tiff",
  tiff: "image/tiff",
  ico: "image/vnd.microsoft.icon",
  aac: "audio/aac",
  opus: "audio/opus",
  avi: "video/x-msvideo",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
};

export function mimeType(path: string): string {
  const dot = path.lastIndexOf(".");
  if (dot < 0) return "application/octet-stream";
  const ext = path.slice(dot + 1).toLowerCase();
  return MIME[ext] ?? REPORTED[ext] ?? "application/octet-stream";
}

/** Attachments Obsidian opens (images, audio, video, PDF) and the plain data files indx serves: what attachment_write accepts. */
export const ATTACHMENT_EXTENSIONS: readonly string[] = Object.keys(MIME).filter((ext) => !["md", "markdown", "canvas", "base"].includes(ext));

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}
