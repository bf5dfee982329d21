/** The value of a command-line option: `--name value` or `--name=value`; undefined when it is not given. */
export function argValue(name: string, argv: readonly string[] = process.argv): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}
