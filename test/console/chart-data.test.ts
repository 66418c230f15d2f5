import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withGaps } from '../../console/src/chart-data.ts';

test('a time series gets a null one step into each hole, so its line breaks there', () => {
  // Minutes 0, 1, 2, then nothing until 6, then 7.
  const { times, series } = withGaps([0, 60, 120, 360, 420], [[5, 6, 7, 8, 9]]);
  assert.deepEqual(times, [0, 60, 120, 180, 360, 420]);
  assert.deepEqual(series, [[5, 6, 7, null, 8, 9]]);
});

test('regular series and single points are left as they are', () => {
  assert.deepEqual(withGaps([0, 60, 120], [[1, 2, 3]]), { times: [0, 60, 120], series: [[1, 2, 3]] });
  assert.deepEqual(withGaps([5], [[1]]), { times: [5], series: [[1]] });
  // Times off any grid (one row per event) are not buckets: nothing is added.
  assert.deepEqual(withGaps([0, 7, 100, 103], [[1, 2, 3, 4]]), { times: [0, 7, 100, 103], series: [[1, 2, 3, 4]] });
});
