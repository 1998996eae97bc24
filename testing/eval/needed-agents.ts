import type { AgentDefinition } from '../../workflows/agents/agent-registry';

/**
 * The agents an evaluation runs: those the recordings are runs of, and the agents their agent
 * tools run (`defineAgentTool`), theirs, and so on; in the order `agents` gives them. The other
 * definitions of an agent module are never run, so nothing they need (an MCP server) is asked for.
 */
export function agentsRecordingsRun(recorded: readonly string[], agents: readonly AgentDefinition[]): AgentDefinition[] {
  const names = new Set<string>();
  const visit = (name: string): void => {
    if (names.has(name)) return;
    names.add(name);
    for (const tool of agents.find((a) => a.name === name)?.tools ?? []) if (tool.subAgent) visit(tool.subAgent.agent);
  };
  recorded.forEach(visit);
  return agents.filter((a) => names.has(a.name));
}

/** One recorded run, as far as what it needs goes. */
export interface RecordedRunNeeds {
  readonly source: string;
  readonly agent: string;
}

/**
 * Why the recordings cannot be evaluated with the MCP servers `given`: the first recording whose
 * agent (or a sub-agent it runs) has a toolset of a server not given, naming the recording, the
 * agents, the toolset and the server. Undefined when every server a recording needs is given.
 */
export function missingMcpServer(recordings: readonly RecordedRunNeeds[], agents: readonly AgentDefinition[], given: readonly string[]): string | undefined {
  for (const recording of recordings) {
    for (const agent of agentsRecordingsRun([recording.agent], agents)) {
      const toolset = agent.toolsets?.find((t) => !given.includes(t.server));
      if (!toolset) continue;
      const toolsetOf = agent.name === recording.agent ? `${agent.name}, whose toolset ${toolset.name}` : `${recording.agent}, whose sub-agent ${agent.name} has the toolset ${toolset.name}, which`;
      return (
        `${recording.source} is a run of ${toolsetOf} lists its tools from MCP server ${toolset.server}: ` +
        `give it with --mcp-config FILE (agentctl eval) or mcpServers (evaluateRuns); given: ${given.join(', ') || 'none'}`
      );
    }
  }
  return undefined;
}
