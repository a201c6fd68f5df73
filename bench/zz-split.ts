import { readFileSync } from 'node:fs';
import { profileSplit, profileTable } from './profile-split';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
console.log(profileTable(profileSplit(p)));
