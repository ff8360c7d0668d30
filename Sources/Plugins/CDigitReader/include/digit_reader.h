// The sequence digit reader's network, run by OpenCV's dnn module, as plain C for Swift.
//
// Every function catches OpenCV's exceptions and returns a status; nothing throws across this
// boundary. The reader is opaque and freed with `pm_reader_free`.
#ifndef PHOTOMETER_DIGIT_READER_H
#define PHOTOMETER_DIGIT_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PM_READER_OK = 0,
  PM_READER_BAD_IMAGE = 1,
  PM_READER_BAD_MODEL = 2,
  PM_READER_FAILED = 3,
} pm_reader_status;

/// The text of the last failure on this thread (OpenCV's message), or "".
const char *pm_reader_last_error(void);

typedef struct pm_reader pm_reader;

/// The widest window the network reads, in its own pixels (at its height): about 90 digits. A
/// wider window (a 1-pixel-high strip scaled up) is squeezed to this width, so that a hostile
/// image cannot make the forward pass allocate without bound.
#define PM_READER_MAX_WIDTH 2880

/// Loads an ONNX network (`cv::dnn::readNetFromONNX`) that takes N x 1 x `height` x W grey images
/// and gives N x C x 1 x W / stride scores.
pm_reader_status pm_reader_load(const char *path, int height, int stride, pm_reader **out);
void pm_reader_free(pm_reader *reader);

/// Scores a window of 8-bit pixels (`channels` 1 or 3, BGR, rows packed): the window in grey,
/// scaled to the network's height with its aspect kept up to PM_READER_MAX_WIDTH (area
/// interpolation down, linear up), zero
/// mean and unit spread (at least 8 grey levels), padded with zeros on the right to a multiple
/// of the stride, forwarded. `*scores` (free with `pm_reader_scores_free`) holds `*channels` rows of `*columns`
/// floats: the network's output as it is. Safe to call from several threads (one at a time runs).
pm_reader_status pm_reader_run(
  pm_reader *reader, const uint8_t *pixels, int width, int height, int channels, float **scores, int *score_channels,
  int *columns);
void pm_reader_scores_free(float *scores);

/// How many threads OpenCV's dnn module (and every other OpenCV function in the process) may use:
/// 1 or less runs everything on the calling thread.
void pm_reader_set_threads(int threads);

typedef struct pm_cells pm_cells;

/// Loads an ONNX cell classifier that takes N x 1 x `height` x `width` grey cells and gives
/// N x C scores.
pm_reader_status pm_cells_load(const char *path, int height, int width, pm_cells **out);
void pm_cells_free(pm_cells *cells);

/// Scores `count` cells of a window of 8-bit pixels (as for `pm_reader_run`): cell i is the
/// window's columns [lefts[i], rights[i]) over its full height, the edge column repeated where a
/// cell runs past the window; each in grey, scaled to the classifier's size (area interpolation
/// down, linear up), zero mean and unit spread (at least 8 grey levels), as
/// Tools/digitreader/cells.py `prepare_cell` does. `*scores` (free with `pm_reader_scores_free`)
/// holds `count` rows of `*classes` floats. With `features` and `feature_count` (either may be
/// NULL) and a classifier that has a `features` output (Tools/digitreader/features.py), `*features`
/// (free it the same way) holds `count` rows of `*feature_count` floats of that layer; else NULL
/// and 0. Safe to call from several threads (one at a time runs).
pm_reader_status pm_cells_run(
  pm_cells *cells, const uint8_t *pixels, int width, int height, int channels, const int *lefts, const int *rights,
  int count, float **scores, int *classes, float **features, int *feature_count);

typedef struct pm_photo_input pm_photo_input;

/// A whole photo of 8-bit pixels (as for `pm_reader_run`) as the row and orientation finders'
/// networks take it: BGR, 0-1, its longer side at `long_side`, both sides whole multiples of 16.
/// Made once, it serves both (shrinking a phone's photo by area takes longer than a network).
pm_reader_status pm_photo_input_make(
  const uint8_t *pixels, int width, int height, int channels, int long_side, pm_photo_input **out);
void pm_photo_input_free(pm_photo_input *input);

typedef struct pm_rows pm_rows;

/// Loads an ONNX row finder (Tools/train-row-finder.py) that takes 1 x 3 x H x W BGR photos
/// (0-1, the longer side `long_side`, both sides multiples of 16) and gives 1 x 1 x H / `stride`
/// x W / `stride` scores: the chance (as a logit) that a cell lies in a row of digits' core, its
/// middle half in height less a tenth of its height at either end.
pm_reader_status pm_rows_load(const char *path, int long_side, int stride, pm_rows **out);
void pm_rows_free(pm_rows *rows);

/// Rows of digits in a whole photo (`input`, made at the finder's `long_side`), surest first, at
/// most `max_rows`: each connected region of cells whose chance is over `threshold`, its turned
/// rectangle grown from core to row. `corners` gets 8 floats a row, the row's digits (no margin)
/// as 4 corners clockwise from the top left in reading order (a row runs along the side of its
/// rectangle nearer level, read left to right; a region whose rectangle stands more than 45
/// degrees from level is none), in the photo's pixels; `scores` the region's mean
/// chance; `count` how many were found. Rows come by mean chance times height. Safe to call from several threads (one at a time runs).
pm_reader_status pm_rows_find(
  pm_rows *rows, const pm_photo_input *input, float threshold, int max_rows, float *corners, float *scores,
  int *count);

typedef struct pm_turns pm_turns;

/// Loads an ONNX orientation finder (Tools/train-orientation.py) that takes photos as the row
/// finder does (`pm_rows_load`) and gives 1 x 5 x h x w logits a cell of a map over the photo:
/// background, or a row's core whose digits stand turned 0, 90, 180 or 270 degrees clockwise.
pm_reader_status pm_turns_load(const char *path, int long_side, pm_turns **out);
void pm_turns_free(pm_turns *turns);

/// The map of a whole photo (`input`, made at the finder's `long_side`), one cell each 8 input
/// pixels: `chances[k * map_width * map_height + cell]` is the cell's chance (softmax over its 5
/// logits) of a row's core whose digits stand turned k quarter turns clockwise, cells row by row.
/// `capacity` is how many floats `chances` holds; a map of more cells than it takes is an error.
/// Safe to call from several threads (one at a time runs).
pm_reader_status pm_turns_find(
  pm_turns *turns, const pm_photo_input *input, float *chances, int capacity, int *map_width, int *map_height);

#ifdef __cplusplus
}
#endif

#endif
