/**
 * The command line as `@effect/cli` reads it. `@effect/cli` takes a subcommand's options only after the
 * subcommand's name, and `--log-level` (a built-in of the root) only before it; people write both anywhere
 * (`git -C DIR status`, `kubectl --context C get pods`). So before parsing, the options written before the
 * command are moved after its name, and `--log-level` goes to the front. Which tokens are options, and which
 * of them take a value, is read from the commands' own `Options`, so that a value that happens to be a
 * command's name (`--config tools`) stays a value.
 *
 * @internal
 */
import * as Options from "@effect/cli/Options"
import * as EditDistance from "@zett/agent/EditDistance"
import * as Context from "effect/Context"

/** The options of a command (`--name` → whether it takes a value) and its subcommands. */
export interface Tree {
  readonly options: ReadonlyMap<string, boolean>
  readonly children: ReadonlyMap<string, Tree>
}

/** A command's tree from the record of options and arguments it was made with (arguments are left out). */
export const tree = (
  config: Readonly<Record<string, unknown>>,
  children: Readonly<Record<string, Tree>> = {}
): Tree => {
  const options = new Map<string, boolean>()
  for (const value of Object.values(config)) {
    if (!Options.isOptions(value)) continue
    const name = Options.getIdentifier(value)
    if (name._tag === "Some") options.set(name.value, !Options.isBool(value))
  }
  return { options, children: new Map(Object.entries(children)) }
}

/** Every option of the tree's commands; the first command to name an option says whether it takes a value. */
const allOptions = (root: Tree): ReadonlyMap<string, boolean> => {
  const all = new Map<string, boolean>()
  const visit = (node: Tree) => {
    for (const [name, takesValue] of node.options) if (!all.has(name)) all.set(name, takesValue)
    for (const child of node.children.values()) visit(child)
  }
  visit(root)
  return all
}

const logLevel = "--log-level"

/** The root's own options, which stay where they are written. */
const builtIns: ReadonlySet<string> = new Set(["--help", "-h", "--version", "--wizard", "--completions"])

/**
 * The arguments in the order `@effect/cli` reads them: `--log-level LEVEL` first, then the command's names,
 * then the options written before them, then the rest as written; `--name=VALUE` is split in two. From the
 * first `--` on nothing is touched.
 * An unknown option before the command moves as a flag (the command then refuses it by name); a built-in
 * (`--help`) or a word that is not a command leaves the order as written, for `@effect/cli` to read.
 */
export const normalize = (root: Tree, args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const forced = args.indexOf("--")
  const head = forced === -1 ? args : args.slice(0, forced)
  const tail = forced === -1 ? [] : args.slice(forced)

  const known = allOptions(root)
  const level: Array<string> = []
  const rest: Array<string> = []
  for (let i = 0; i < head.length; i++) {
    const arg = head[i]!
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1
    const name = equals === -1 ? arg : arg.slice(0, equals)
    if (name === logLevel) {
      if (equals !== -1) level.push(logLevel, arg.slice(equals + 1))
      else if (i + 1 < head.length) level.push(arg, head[++i]!)
      else rest.push(arg)
    } else if (equals !== -1 && known.get(name) === true) {
      // `--config=FILE` as `--config FILE`: @effect/cli reads the `=` form only for some kinds of options
      rest.push(name, arg.slice(equals + 1))
    } else rest.push(arg)
  }

  const path: Array<string> = []
  const moved: Array<string> = []
  let node = root
  let i = 0
  while (i < rest.length && node.children.size > 0) {
    const arg = rest[i]!
    const child = node.children.get(arg)
    if (child !== undefined) {
      path.push(arg)
      node = child
      i++
      continue
    }
    // an unknown option is moved as a flag, so that the command refuses it by name
    const takesValue = known.get(arg) ?? (arg.startsWith("-") && !builtIns.has(arg) ? false : undefined)
    if (takesValue === undefined) break
    moved.push(arg)
    i++
    if (takesValue && i < rest.length) moved.push(rest[i++]!)
  }
  // only a whole command path moves anything: otherwise the parser says what is wrong with the line as written
  const ordered = moved.length > 0 && node.children.size === 0 ? [...path, ...moved, ...rest.slice(i)] : rest
  return [...level, ...ordered, ...tail]
}

/**
 * For a command that can start its server itself (`zett tools -- COMMAND ARGS...`): the normalized arguments
 * before the first `--`, and the words after it. For any other command the `--` stays for `@effect/cli`.
 */
export const serverCommand = (
  args: ReadonlyArray<string>,
  commands: ReadonlySet<string>
): { readonly args: ReadonlyArray<string>; readonly command: ReadonlyArray<string> | undefined } => {
  const first = args[0] === logLevel ? 2 : 0
  const forced = args.indexOf("--")
  return forced === -1 || !commands.has(args[first] ?? "")
    ? { args, command: undefined }
    : { args: args.slice(0, forced), command: args.slice(forced + 1) }
}

/**
 * The words after `--` on the command line (`undefined` without one): the server's command and its arguments.
 * `@effect/cli` would read them as the command's own arguments (`zett call TOOL [JSON]`), so `Cli.run` takes
 * them off before parsing.
 */
export class ServerCommand extends Context.Reference<ServerCommand>()("@zett/cli/internal/argv/ServerCommand", {
  defaultValue: (): ReadonlyArray<string> | undefined => undefined
}) {}

/**
 * The parser's word on an unknown option or command, said as a person needs it: which command it was given to,
 * and the nearest name that command has (`unknown option --confg for zett tools (did you mean --config?)`);
 * `undefined` for any other message.
 */
export const unknownName = (root: Tree, args: ReadonlyArray<string>, message: string): string | undefined => {
  const head = args.indexOf("--") === -1 ? args : args.slice(0, args.indexOf("--"))
  // the commands named, in order (`auth login`)
  const path: Array<string> = []
  let node = root
  for (const arg of head) {
    const child = node.children.get(arg)
    if (child === undefined) continue
    path.push(arg)
    node = child
  }
  const command = ["zett", ...path].join(" ")
  const option = /^Received unknown argument: '(-[^']*)'$/.exec(message)?.[1]
  if (option !== undefined) {
    const near = EditDistance.nearest(
      option,
      [...node.options.keys(), ...builtIns].filter((name) => name.startsWith("--"))
    )
    return `unknown option ${option} for ${command}${
      near === undefined ? `; see ${command} --help` : ` (did you mean ${near}?)`
    }`
  }
  if (/^Invalid subcommand for /.test(message)) {
    const word = head.find((arg) => !arg.startsWith("-") && !node.children.has(arg) && !path.includes(arg))
    if (word === undefined) return undefined
    const near = EditDistance.nearest(word, node.children.keys())
    return `${command} has no command ${word}${near === undefined ? "" : ` (did you mean ${near}?)`}; it has ${
      [...node.children.keys()].join(", ")
    }`
  }
  return undefined
}
