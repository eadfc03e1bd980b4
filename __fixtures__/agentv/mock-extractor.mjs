// The project's own stand-in for AgentV's document-extraction mock (which needs bun): it copies
// the invoice fixture it is given to {OUTPUT_FILE}, as the example's extractor does.
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
writeFileSync(output, readFileSync(input, 'utf8'));
