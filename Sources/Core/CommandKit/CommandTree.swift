/// A tool's listed commands, walked depth first: what the completion scripts and the manual's
/// synopsis are rendered from.
struct CommandTree {
    struct Node {
        /// The words after the tool's name: `["account", "add"]`; empty for the tool itself.
        let path: [String]
        let command: any Command.Type

        var configuration: CommandConfiguration { command.configuration }
        var children: [any Command.Type] { configuration.listedSubcommands }
        var isGroup: Bool { !children.isEmpty }
    }

    let toolName: String
    /// The tool itself first, then every listed command in the order the tool lists them.
    let nodes: [Node]

    init(root: any Command.Type, toolName: String) {
        self.toolName = toolName
        var nodes: [Node] = []
        func walk(_ command: any Command.Type, _ path: [String]) {
            nodes.append(Node(path: path, command: command))
            for child in command.configuration.listedSubcommands { walk(child, path + [child.configuration.name]) }
        }
        walk(root, [])
        self.nodes = nodes
    }

    var groups: [Node] { nodes.filter(\.isGroup) }
    var leaves: [Node] { nodes.filter { !$0.isGroup } }

    /// The options a node offers: its own, `--version` for the tool itself, and `--help`.
    func offeredOptions(_ node: Node) -> [Option] {
        node.configuration.options
            + (node.path.isEmpty ? [.version] : []) + [.help]
    }
}
