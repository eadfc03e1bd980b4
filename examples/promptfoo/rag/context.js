// The passages the answer cites, one per line (promptfoo: a text or a list of texts).
module.exports = (output) => JSON.parse(output).sources.join('\n');
