import { expect, test } from "bun:test";
import { compressNoteRecord, decodeNoteText, type NoteText, noteRecord, storedNoteRecord } from "../../../src/index/storage/note-text.ts";

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

test("a record is stored compressed once, whichever thread compressed it", () => {
  const record = noteRecord({ outline: [{ level: 1, text: "T" }], chunks: [{ headingPath: ["T"], text: "# T\n\nbody", startLine: 1 }] });
  const compressed = compressNoteRecord(record);
  expect(storedNoteRecord(record)).toEqual(compressed);
  expect(storedNoteRecord(compressed)).toBe(compressed);
  expect(decodeNoteText(storedNoteRecord(compressed)).chunks[0]!.text).toBe("# T\n\nbody");
});
