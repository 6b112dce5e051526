// What tests/cli/escapes.test.ts's hostile server and hook put in every string they hand over:
// everything a terminal may obey. Each attempt is [what it is, the bytes].
export const ATTEMPTS = [
  ["CSI clear screen", "\x1b[2J"],
  ["CSI cursor up, erase line", "\x1b[1A\x1b[2K"],
  ["OSC window title (BEL)", "\x1b]0;pwned\x07"],
  ["OSC 8 hyperlink (ST)", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"],
  ["BEL", "\x07"],
  ["CR overwrite", "over\rwritten"],
  ["backspaces", "back\x08\x08"],
  ["C1 CSI", "\x9b2J"],
  ["C1 OSC and ST", "\x9d0;c1title\x9c"],
  ["bidi override", "\u202egnp.exe"],
  ["bidi isolate", "\u2067isolated\u2069"],
  ["DEL", "del\x7f"],
];

export const ESC_PAYLOAD = ATTEMPTS.map(([, bytes]) => bytes).join(" ");
