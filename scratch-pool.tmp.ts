import { McpClientPool } from './activities/mcp';
(async () => {
  const pool = new McpClientPool({ e: { transport: 'stdio', command: process.execPath, args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'], stderr: 'ignore' } });
  const l = await pool.listTools('e');
  console.log(l.version, l.tools.map((t) => t.name));
  await new Promise((r) => setTimeout(r, 1000));
  const l2 = await pool.listTools('e');
  console.log(l2.version, l2.tools.length);
  console.log(JSON.stringify(await pool.callTool('e', 'get-sum', { a: 1, b: 2 })));
  console.log(JSON.stringify(await pool.callTool('e', 'get-sum', { a: 'x' })));
  try { console.log(JSON.stringify(await pool.callTool('e', 'nope', {}))); } catch (e) { console.log('err', (e as Error).message); }
  console.log(JSON.stringify(l.tools.find(t=>t.name==='trigger-long-running-operation')));
  await pool.close();
})();
