import { expect, test } from "bun:test";
import { compressNoteRecord, decodeNoteText, type NoteText, noteRecord } from "../../../src/index/note-text.ts";

test("a note's record gives back its outline and chunks exactly, start lines included", () => {
  const notes: NoteText[] = [
    { outline: [], chunks: [] },
    { outline: [], chunks: [{ headingPath: [], text: "", startLine: 1 }] },
    {
      outline: [
        { level: 1, text: 'Title "quoted"\n' },
        { level: 2, text: "Ünïcödé 東京 😀" },
      ],
      chunks: [
        { headingPath: [], text: "before any heading\n\nwith a blank line, a tab\tand a \\ backslash", startLine: 4 },
        { headingPath: ['Title "quoted"\n'], text: "", startLine: 7 },
        { headingPath: ['Title "quoted"\n', "Ünïcödé 東京 😀"], text: "😀 astral 𝐀 letters, \u0000 a NUL and\r\nCRLF\n", startLine: 9 },
        { headingPath: ["x"], text: '{"looks": ["like", "json"]}\n', startLine: 12 },
      ],
    },
  ];
  for (const note of notes) expect(decodeNoteText(compressNoteRecord(noteRecord(note)))).toEqual(note);
});
