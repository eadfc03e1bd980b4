// A transform: the answer is JSON; the assertions grade the parsed object.
module.exports = (output) => JSON.parse(output);
