// Prints the README's configuration table from the one list of variables the loader reads.
import { configTableMarkdown } from '../main/core/config/index.ts';

process.stdout.write(configTableMarkdown() + '\n');
