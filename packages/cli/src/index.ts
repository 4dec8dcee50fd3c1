/**
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * @since 0.1.0
 */
export * as CliError from "./CliError.js"

/**
 * @since 0.1.0
 */
export * as Demo from "./Demo.js"

/**
 * @since 0.1.0
 */
export * as Discovery from "./Discovery.js"

/**
 * @since 0.1.0
 */
export * as EnvironmentModel from "./EnvironmentModel.js"

/**
 * @since 0.1.0
 */
export * as Output from "./Output.js"

/**
 * @since 0.1.0
 */
export * as Progress from "./Progress.js"

/**
 * @since 0.1.0
 */
export * as ToolsReport from "./ToolsReport.js"

/**
 * @since 0.1.0
 */
export * as Transcript from "./Transcript.js"
