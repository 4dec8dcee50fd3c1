/**
 * @since 1.0.0
 */
export * as ProcessGroups from "./ProcessGroups.js"
