// `strata plot a.json b.json … --out plot.svg`: several load-generator reports in one SVG, one series
// per report label, to compare configurations (placements, DRAM budgets, protocols).
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { StrataError } from '../../common/errors.js';
import { parseReport, renderSvg, type LoadgenReport } from '../../loadgen/index.js';

export function registerPlot(program: Command): void {
  program
    .command('plot')
    .description('plot strata loadgen reports together (recall vs QPS with Pareto fronts, latency vs load) as SVG')
    .argument('<reports...>', 'JSON reports written by strata loadgen --report')
    .requiredOption('-o, --out <file.svg>', 'SVG file to write')
    .option('--title <text>', 'title above the plot')
    .action(async (files: string[], f: { out: string; title?: string }) => {
      const reports: LoadgenReport[] = files.map((file) => {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          throw new StrataError('STRATA_INVALID_ARGUMENT', `${file}: cannot read the report (${(e as NodeJS.ErrnoException).code ?? String(e)})`, {
            field: 'reports',
            file,
          });
        }
        return parseReport(text, file);
      });
      const svg = await renderSvg(reports, f.title !== undefined ? { title: f.title } : {});
      mkdirSync(dirname(f.out), { recursive: true });
      writeFileSync(f.out, svg);
      process.stderr.write(`plot: ${reports.length} report(s) → ${f.out}\n`);
    });
}
