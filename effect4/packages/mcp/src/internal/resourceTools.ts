/**
 * The resource tools of a server whose resources are tools (`<server>__list_resources`, `<server>__read_resource`):
 * their names, which the system text about the servers gives. The tools themselves come with the extension's port.
 *
 * @internal
 */
export const listSuffix = "list_resources"
export const readSuffix = "read_resource"
