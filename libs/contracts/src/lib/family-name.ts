/**
 * A tool family's name: lowercase letters and digits, a letter first. Its tools are named `<family>_<verb>`, and
 * no list of families is part of the contract: a server's are what `GET /tools` lists.
 */
export const FAMILY_NAME_PATTERN = /^[a-z][a-z0-9]*$/;
