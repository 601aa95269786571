import { encode } from "gpt-tokenizer/encoding/o200k_base";
import fs from "node:fs";
for (const l of fs.readFileSync(0,"utf8").split("\n")) console.log(String(encode(l+"\n").length).padStart(3), l);
