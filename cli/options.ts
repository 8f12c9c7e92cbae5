// Parsers for CLI option values: each names the option it rejects.
import { InvalidArgumentError } from 'commander';
import { invalidArgument } from '../common/errors.js';

export function intOption(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^-?\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number in ${min}..${max}, got "${v}"`);
    }
    return n;
  };
}

export function numberOption(name: string, min: number, max = Number.POSITIVE_INFINITY) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a number ${max === Number.POSITIVE_INFINITY ? `>= ${min}` : `in ${min}..${max}`}, got "${v}"`);
    return n;
  };
}

export function choiceOption<T extends string>(name: string, choices: readonly T[]) {
  return (v: string): T => {
    if (!(choices as readonly string[]).includes(v)) throw new InvalidArgumentError(`${name} must be one of ${choices.join(', ')}, got "${v}"`);
    return v as T;
  };
}

/** The key from --api-key or $STRATA_API_KEY (serve, router); set but empty is an error naming where it came from. */
export function apiKeyOf(flag: string | undefined): string | undefined {
  const [key, source] = flag !== undefined ? [flag, '--api-key'] : [process.env['STRATA_API_KEY'], 'STRATA_API_KEY'];
  if (key !== undefined && key.trim() === '')
    throw invalidArgument(source, 'is set but empty: give the key, or unset it to serve without one (only on 127.0.0.1, or with --insecure-no-auth)');
  return key;
}
