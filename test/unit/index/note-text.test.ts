import { expect, test } from "bun:test";
import { decodeNoteText, encodeNoteText, type NoteText } from "../../../src/index/note-text.ts";

test("a note's record gives back its outline and chunks exactly", () => {
  const notes: NoteText[] = [
    { outline: [], chunks: [] },
    { outline: [], chunks: [{ headingPath: [], text: "" }] },
    {
      outline: [
        { level: 1, text: 'Title "quoted"\n' },
        { level: 2, text: "Ünïcödé 東京 😀" },
      ],
      chunks: [
        { headingPath: [], text: "before any heading\n\nwith a blank line, a tab\tand a \\ backslash" },
        { headingPath: ['Title "quoted"\n'], text: "" },
        { headingPath: ['Title "quoted"\n', "Ünïcödé 東京 😀"], text: "😀 astral 𝐀 letters, \u0000 a NUL and\r\nCRLF\n" },
        { headingPath: ["x"], text: '{"looks": ["like", "json"]}\n' },
      ],
    },
  ];
  for (const note of notes) expect(decodeNoteText(encodeNoteText(note))).toEqual(note);
});
