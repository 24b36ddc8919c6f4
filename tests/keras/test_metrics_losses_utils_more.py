"""Keras 3.15's confusion-count, F-score, R2, IoU and correlation metrics, its focal, Dice,
Tversky and generalized crossentropy losses, and the keras.utils helpers (pad_sequences,
normalize, split_dataset, get_source_inputs, PyDataset, the serialization registry).

The reference values, configs and variable names below were computed with Keras 3.15 (TensorFlow
2.21) on the data given here by tests/keras/fixtures/make_metrics_losses_values.py (run it with
TensorFlow 2.21 and Keras 3.15 installed, from the repository root): metrics after two batches
(``update_state`` twice), losses on one batch, and a two-epoch ``fit`` of a Dense model from fixed
weights."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.keras import losses, metrics, serialization, utils

# fmt: off
DATA = {'yb': [[[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0]],
        [[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]],
 'pb': [[[0.814, 0.498, 0.248], [0.777, 0.979, 0.538], [0.737, 0.993, 0.03], [0.599, 0.967, 0.117],
         [0.223, 0.55, 0.722], [0.553, 0.548, 0.052]],
        [[0.739, 0.321, 0.074], [0.958, 0.66, 0.456], [0.733, 0.478, 0.125], [0.605, 0.747, 0.744],
         [0.552, 0.928, 0.946], [0.875, 0.372, 0.268]]],
 'sw': [[0.53, 0.654, 0.161, 0.559, 0.439, 0.002], [0.419, 0.4, 0.963, 0.055, 0.929, 0.908]],
 'yr': [[[1.64, -0.361, -0.334], [-0.592, 0.611, -0.622], [-0.645, 0.727, 1.162], [0.574, -2.683, -0.954],
         [-1.073, -1.208, -0.408], [1.818, -0.307, -0.735]],
        [[0.699, 0.069, 0.121], [-0.687, -0.002, 0.435], [-1.911, -1.61, 1.085], [0.843, -0.507, -1.02],
         [-0.186, -1.194, -0.34], [1.651, 0.132, 1.166]]],
 'pr': [[[1.529, -0.176, 0.359], [-1.26, 0.437, -0.7], [-0.504, 1.504, 1.505], [-0.175, -2.818, -1.401],
         [-1.533, -0.196, -0.939], [1.936, -0.665, -0.305]],
        [[0.876, 0.133, 0.083], [-0.118, -0.468, 0.072], [-2.469, -0.943, 0.938], [0.324, -0.717, 0.23],
         [-0.24, -0.769, -0.107], [1.645, -0.214, 0.999]]],
 'yi': [[1, 1, 1, 1, 3, 0], [2, 1, 2, 1, 1, 0]],
 'pi': [[4, 0, -1, 4, 2, 2], [2, 0, -1, -1, 4, 4]],
 'swi': [[2, 0, 1, 0, 0, 0], [2, 2, 2, 2, 1, 0]],
 'sc': [[[0.638, 0.652, 0.526, 0.004], [0.692, 0.43, 0.932, 0.997], [0.637, 0.116, 0.317, 0.63],
         [0.871, 0.421, 0.361, 0.607], [0.855, 0.195, 0.595, 0.616], [0.475, 0.36, 0.948, 0.816]],
        [[0.155, 0.001, 0.258, 0.423], [0.162, 0.338, 0.681, 0.739], [0.818, 0.814, 0.323, 0.533],
         [0.738, 0.612, 0.58, 0.812], [0.945, 0.898, 0.27, 0.12], [0.288, 0.801, 0.316, 0.743]]]}
METRICS = {
    'TruePositives()': {'kind': 'b',
         'sw': True,
         'value': 7.2220001220703125,
         'config': {'dtype': 'float32', 'thresholds': None},
         'variables': ['accumulator']},
    'FalsePositives(thresholds=[0.0, 0.5, 1.0])': {'kind': 'b',
         'sw': False,
         'value': [13.0, 10.0, 0.0],
         'config': {'dtype': 'float32', 'thresholds': [0.0, 0.5, 1.0]},
         'variables': ['accumulator']},
    'TrueNegatives(thresholds=[0.1, 0.33, 0.8])': {'kind': 'b',
         'sw': True,
         'value': [0.16099999845027924, 1.069000005722046, 3.5219998359680176],
         'config': {'dtype': 'float32', 'thresholds': [0.1, 0.33, 0.8]},
         'variables': ['accumulator']},
    'FalseNegatives()': {'kind': 'b',
         'sw': True,
         'value': 5.169000148773193,
         'config': {'dtype': 'float32', 'thresholds': None},
         'variables': ['accumulator']},
    'PrecisionAtRecall(0.6)': {'kind': 'b',
         'sw': True,
         'value': 0.6923894286155701,
         'config': {'dtype': 'float32', 'class_id': None, 'num_thresholds': 200, 'recall': 0.6},
         'variables': ['true_positives', 'false_positives', 'true_negatives', 'false_negatives']},
    'RecallAtPrecision(0.7, num_thresholds=9)': {'kind': 'b',
         'sw': False,
         'value': 0.0,
         'config': {'dtype': 'float32', 'class_id': None, 'num_thresholds': 9, 'precision': 0.7},
         'variables': ['true_positives', 'false_positives', 'true_negatives', 'false_negatives']},
    'SensitivityAtSpecificity(0.4, class_id=1)': {'kind': 'b',
         'sw': True,
         'value': 0.195659801363945,
         'config': {'dtype': 'float32', 'class_id': 1, 'num_thresholds': 200, 'specificity': 0.4},
         'variables': ['true_positives', 'false_positives', 'true_negatives', 'false_negatives']},
    'SpecificityAtSensitivity(0.5, num_thresholds=1)': {'kind': 'b',
         'sw': False,
         'value': 0.23076923191547394,
         'config': {'dtype': 'float32', 'class_id': None, 'num_thresholds': 1, 'sensitivity': 0.5},
         'variables': ['true_positives', 'false_positives', 'true_negatives', 'false_negatives']},
    'F1Score()': {'kind': 'b',
         'sw': True,
         'value': [0.6151677966117859, 0.260849267244339, 0.4330483675003052],
         'config': {'dtype': 'float32', 'average': None, 'threshold': None},
         'variables': ['true_positives', 'false_positives', 'false_negatives', 'intermediate_weights']},
    "F1Score(average='micro', threshold=0.4)": {'kind': 'b',
         'sw': False,
         'value': 0.6122448444366455,
         'config': {'dtype': 'float32', 'average': 'micro', 'threshold': 0.4},
         'variables': ['true_positives', 'false_positives', 'false_negatives', 'intermediate_weights']},
    "FBetaScore(average='macro', beta=2.0)": {'kind': 'b',
         'sw': True,
         'value': 0.3657968044281006,
         'config': {'dtype': 'float32', 'average': 'macro', 'beta': 2.0, 'threshold': None},
         'variables': ['true_positives', 'false_positives', 'false_negatives', 'intermediate_weights']},
    "FBetaScore(average='weighted', beta=0.5, threshold=0.6)": {'kind': 'b',
         'sw': True,
         'value': 0.5975154042243958,
         'config': {'dtype': 'float32', 'average': 'weighted', 'beta': 0.5, 'threshold': 0.6},
         'variables': ['true_positives', 'false_positives', 'false_negatives', 'intermediate_weights']},
    'R2Score()': {'kind': 'r',
         'sw': True,
         'value': 0.8085758686065674,
         'config': {'dtype': 'float32', 'class_aggregation': 'uniform_average', 'num_regressors': 0},
         'variables': ['num_samples', 'squared_sum', 'sum', 'residual', 'count']},
    'R2Score(class_aggregation=None)': {'kind': 'r',
         'sw': False,
         'value': [0.8618109226226807, 0.734670877456665, 0.5820481777191162],
         'config': {'dtype': 'float32', 'class_aggregation': None, 'num_regressors': 0},
         'variables': ['num_samples', 'squared_sum', 'sum', 'residual', 'count']},
    "R2Score(class_aggregation='variance_weighted_average', num_regressors=3)": {'kind': 'r',
         'sw': True,
         'value': 0.8033056259155273,
         'config': {'dtype': 'float32', 'class_aggregation': 'variance_weighted_average', 'num_regressors': 3},
         'variables': ['num_samples', 'squared_sum', 'sum', 'residual', 'count']},
    'PearsonCorrelation()': {'kind': 'r',
         'sw': True,
         'value': 0.821942150592804,
         'config': {'dtype': 'float32', 'axis': -1},
         'variables': ['total', 'count']},
    'ConcordanceCorrelation()': {'kind': 'r',
         'sw': True,
         'value': 0.7489592432975769,
         'config': {'dtype': 'float32', 'axis': -1},
         'variables': ['total', 'count']},
    'ConcordanceCorrelation(axis=0)': {'kind': 'r',
         'sw': False,
         'value': 0.8270225524902344,
         'config': {'dtype': 'float32', 'axis': 0},
         'variables': ['total', 'count']},
    'MeanIoU(4)': {'kind': 'i',
         'sw': True,
         'value': 0.3333333432674408,
         'config': {'num_classes': 4,
                    'dtype': 'int64',
                    'ignore_class': None,
                    'sparse_y_true': True,
                    'sparse_y_pred': True,
                    'axis': -1},
         'variables': ['total_confusion_matrix']},
    'MeanIoU(4, ignore_class=2)': {'kind': 'i',
         'sw': False,
         'value': 0.0,
         'config': {'num_classes': 4,
                    'dtype': 'int64',
                    'ignore_class': 2,
                    'sparse_y_true': True,
                    'sparse_y_pred': True,
                    'axis': -1},
         'variables': ['total_confusion_matrix']},
    'IoU(4, [0, 3])': {'kind': 'i',
         'sw': True,
         'value': 0.0,
         'config': {'dtype': 'int64',
                    'num_classes': 4,
                    'target_class_ids': [0, 3],
                    'ignore_class': None,
                    'sparse_y_true': True,
                    'sparse_y_pred': True,
                    'axis': -1},
         'variables': ['total_confusion_matrix']},
    'BinaryIoU(threshold=0.4)': {'kind': 'bi',
         'sw': True,
         'value': 0.25,
         'config': {'target_class_ids': [0, 1], 'threshold': 0.4, 'dtype': 'int64'},
         'variables': ['total_confusion_matrix']},
    'OneHotIoU(4, [1, 2])': {'kind': 'o',
         'sw': False,
         'value': 0.0625,
         'config': {'num_classes': 4,
                    'target_class_ids': [1, 2],
                    'dtype': 'int64',
                    'ignore_class': None,
                    'sparse_y_pred': False,
                    'axis': -1},
         'variables': ['total_confusion_matrix']},
    'OneHotMeanIoU(4)': {'kind': 'o',
         'sw': True,
         'value': 0.0625,
         'config': {'num_classes': 4, 'dtype': 'int64', 'ignore_class': None, 'sparse_y_pred': False, 'axis': -1},
         'variables': ['total_confusion_matrix']},
}
LDATA = {'lg': [[-3.27, -7.744, -6.882], [-4.017, 2.398, 0.265], [-2.272, -3.855, -0.342], [-0.479, -1.692, -0.736],
        [-2.29, 5.41, -7.101], [0.367, -3.043, 2.12]],
 'oh': [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
 'sm': [[0.963, 0.011, 0.026], [0.001, 0.893, 0.106], [0.124, 0.025, 0.851], [0.483, 0.144, 0.373],
        [0.0, 1.0, 0.0], [0.147, 0.005, 0.848]],
 'ys': [0, 0, 0, 2, 0, 1],
 'lw': [0.707, 0.203, 0.52, 0.438, 0.202, 0.219]}
LOSSES = {
    'BinaryFocalCrossentropy()': {'t': 'yb',
         'p': 'pb',
         'sw': True,
         'value': 0.3208071291446686,
         'config': {'name': 'binary_focal_crossentropy',
                    'reduction': 'sum_over_batch_size',
                    'from_logits': False,
                    'label_smoothing': 0.0,
                    'axis': -1,
                    'apply_class_balancing': False,
                    'alpha': 0.25,
                    'gamma': 2.0}},
    'BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, gamma=1.5, label_smoothing=0.1)': {'t': 'yb',
         'p': 'pb',
         'sw': False,
         'value': 0.4358871281147003,
         'config': {'name': 'binary_focal_crossentropy',
                    'reduction': 'sum_over_batch_size',
                    'from_logits': False,
                    'label_smoothing': 0.1,
                    'axis': -1,
                    'apply_class_balancing': True,
                    'alpha': 0.3,
                    'gamma': 1.5}},
    "BinaryFocalCrossentropy(from_logits=True, reduction='sum')": {'t': 'yb',
         'p': 'lg',
         'sw': True,
         'value': 6.048897743225098,
         'config': {'name': 'binary_focal_crossentropy',
                    'reduction': 'sum',
                    'from_logits': True,
                    'label_smoothing': 0.0,
                    'axis': -1,
                    'apply_class_balancing': False,
                    'alpha': 0.25,
                    'gamma': 2.0}},
    'CategoricalFocalCrossentropy()': {'t': 'oh',
         'p': 'sm',
         'sw': True,
         'value': 0.28197532892227173,
         'config': {'name': 'categorical_focal_crossentropy',
                    'reduction': 'sum_over_batch_size',
                    'from_logits': False,
                    'label_smoothing': 0.0,
                    'axis': -1,
                    'alpha': 0.25,
                    'gamma': 2.0}},
    'CategoricalFocalCrossentropy(alpha=0.5, gamma=3.0, from_logits=True, label_smoothing=0.2)': {'t': 'oh',
         'p': 'lg',
         'sw': False,
         'value': 1.1611932516098022,
         'config': {'name': 'categorical_focal_crossentropy',
                    'reduction': 'sum_over_batch_size',
                    'from_logits': True,
                    'label_smoothing': 0.2,
                    'axis': -1,
                    'alpha': 0.5,
                    'gamma': 3.0}},
    'Dice()': {'t': 'yb',
         'p': 'pb',
         'sw': False,
         'value': 0.40806275606155396,
         'config': {'name': 'dice', 'reduction': 'sum_over_batch_size', 'axis': None}},
    'Dice(axis=-1)': {'t': 'yb',
         'p': 'pb',
         'sw': True,
         'value': 0.15461230278015137,
         'config': {'name': 'dice', 'reduction': 'sum_over_batch_size', 'axis': -1}},
    'Tversky()': {'t': 'yb',
         'p': 'pb',
         'sw': False,
         'value': 0.40806275606155396,
         'config': {'name': 'tversky', 'reduction': 'sum_over_batch_size', 'alpha': 0.5, 'beta': 0.5, 'axis': None}},
    'Tversky(alpha=0.3, beta=0.7, axis=-1, reduction=None)': {'t': 'yb',
         'p': 'pb',
         'sw': False,
         'value': [0.21686750650405884, 0.40384441614151, 0.5189295411109924, 0.3903605341911316,
                   0.23195487260818481, 0.5735911130905151],
         'config': {'name': 'tversky', 'reduction': None, 'alpha': 0.3, 'beta': 0.7, 'axis': -1}},
    'CategoricalGeneralizedCrossEntropy()': {'t': 'ys',
         'p': 'sm',
         'sw': True,
         'value': 0.37422797083854675,
         'config': {'name': 'categorical_generalized_cross_entropy', 'reduction': 'sum_over_batch_size', 'q': 0.5}},
    "CategoricalGeneralizedCrossEntropy(q=0.2, reduction='sum')": {'t': 'ys',
         'p': 'sm',
         'sw': False,
         'value': 14.650293350219727,
         'config': {'name': 'categorical_generalized_cross_entropy', 'reduction': 'sum', 'q': 0.2}},
}
SERIALIZED = [{'module': 'keras.losses',
  'class_name': 'Tversky',
  'config': {'name': 'tversky', 'reduction': 'sum_over_batch_size', 'alpha': 0.2, 'beta': 0.5, 'axis': None},
  'registered_name': None},
 {'module': 'builtins', 'class_name': 'function', 'config': 'dice', 'registered_name': 'function'},
 {'module': 'keras.metrics',
  'class_name': 'F1Score',
  'config': {'name': 'f1_score', 'dtype': 'float32', 'average': 'macro', 'threshold': None},
  'registered_name': None},
 {'module': 'keras.metrics',
  'class_name': 'OneHotMeanIoU',
  'config': {'num_classes': 3,
             'name': 'one_hot_mean_io_u_1',
             'dtype': 'int64',
             'ignore_class': None,
             'sparse_y_pred': False,
             'axis': -1},
  'registered_name': None}]
FIT_X = [[1.984, -2.251, -0.956, 0.964], [-1.131, -0.183, 1.708, 0.875], [-0.962, 0.454, 0.645, 0.067],
 [-0.101, 0.142, -1.501, 0.127], [-0.967, 0.394, 0.429, -0.893], [0.613, 0.356, -0.042, 0.726],
 [-0.313, -0.284, 0.078, -0.059], [1.142, -2.374, -0.31, -2.015], [-0.526, 0.232, -0.022, 0.939],
 [0.287, -2.777, -1.158, 1.514], [1.516, 0.052, -1.602, 2.119], [-2.153, 0.25, -0.112, 0.178]]
FIT_W0 = [[-0.62, -0.236, 0.501], [-0.283, -0.731, -0.048], [0.003, -0.11, -0.439], [0.228, -0.107, -0.632]]
FITS = {
    'BinaryFocalCrossentropy(gamma=1.5)': {'act': 'sigmoid',
         'target': 'yb',
         'history': {'f1_score': [0.6164020895957947, 0.47863245010375977],
                     'loss': [0.34213852882385254, 0.2989678382873535]},
         'kernel': [[-0.5796008706092834, -0.30377694964408875, 0.4599064290523529],
                    [-0.1898997724056244, -0.45136839151382446, -0.10771737992763519],
                    [0.030340472236275673, -0.0867341011762619, -0.4048917293548584],
                    [0.2692815363407135, -0.13050517439842224, -0.4889499545097351]],
         'bias': [-0.011165081523358822, -0.07302436232566833, 0.1945185661315918]},
    'Dice()': {'act': 'sigmoid',
         'target': 'yb',
         'history': {'f1_score': [0.6164020895957947, 0.5833333134651184],
                     'loss': [0.40885695815086365, 0.39594411849975586]},
         'kernel': [[-0.6507406234741211, -0.2604469656944275, 0.5509901642799377],
                    [-0.2696351110935211, -0.7307527661323547, -0.13067638874053955],
                    [0.015467769466340542, -0.13942617177963257, -0.5052966475486755],
                    [0.2928771674633026, -0.12048506736755371, -0.5529981255531311]],
         'bias': [0.06833630800247192, 0.056791067123413086, 0.12668690085411072]},
    'Tversky(alpha=0.3, beta=0.7)': {'act': 'sigmoid',
         'target': 'yb',
         'history': {'f1_score': [0.6164020895957947, 0.6164020895957947],
                     'loss': [0.38676121830940247, 0.37801554799079895]},
         'kernel': [[-0.6528131365776062, -0.2518264055252075, 0.553805947303772],
                    [-0.25583797693252563, -0.724234402179718, -0.12086018174886703],
                    [0.026211297139525414, -0.138849675655365, -0.4978576600551605],
                    [0.2805708348751068, -0.1335834413766861, -0.5661459565162659]],
         'bias': [0.03589090704917908, 0.02556978166103363, 0.09896507114171982]},
    'CategoricalFocalCrossentropy()': {'act': 'softmax',
         'target': 'oh',
         'history': {'loss': [0.14888997375965118, 0.12489231675863266]},
         'kernel': [[-0.5227407217025757, -0.2212633192539215, 0.38900405168533325],
                    [-0.34296414256095886, -0.7531250715255737, 0.03408920392394066],
                    [-0.1677130162715912, -0.025296352803707123, -0.35299065709114075],
                    [0.2804504632949829, -0.1827147752046585, -0.6087357401847839]],
         'bias': [0.03455863893032074, -0.02338465303182602, -0.011173986829817295]},
    'CategoricalGeneralizedCrossEntropy(q=0.7)': {'act': 'softmax',
         'target': 'ys',
         'history': {'loss': [0.791989803314209, 0.7572228312492371]},
         'kernel': [[-0.5662881731987, -0.25071799755096436, 0.462006151676178],
                    [-0.3676850497722626, -0.616405725479126, -0.07790914922952652],
                    [0.06756029278039932, -0.10290933400392532, -0.5106509923934937],
                    [0.30959564447402954, -0.16580358147621155, -0.6547921299934387]],
         'bias': [0.23814789950847626, -0.14855967462062836, -0.0895882248878479]},
}
# fmt: on


def _f32(v):
    return np.asarray(v, dtype="float32")


def _batches(kind):
    """The two ``(y_true, y_pred)`` batches of a metric case, and the two weight batches."""
    d = DATA
    if kind == "b":
        pairs = [(_f32(d["yb"][b]), _f32(d["pb"][b])) for b in range(2)]
    elif kind == "r":
        pairs = [(_f32(d["yr"][b]), _f32(d["pr"][b])) for b in range(2)]
    elif kind == "i":
        pairs = [(np.asarray(d["yi"][b]), np.asarray(d["pi"][b])) for b in range(2)]
    elif kind == "bi":
        pairs = [(_f32(d["yb"][b])[:, 0], _f32(d["pb"][b])[:, 0]) for b in range(2)]
    else:
        pairs = [(np.eye(4, dtype="float32")[d["yi"][b]], _f32(d["sc"][b])) for b in range(2)]
    weights = [np.asarray(d["swi"][b]) if kind in ("i", "bi", "o") else _f32(d["sw"][b]) for b in range(2)]
    return pairs, weights


@pytest.mark.parametrize("expr", list(METRICS))
def test_metric_matches_keras_eagerly(expr):
    case = METRICS[expr]
    m = eval("metrics." + expr)
    pairs, weights = _batches(case["kind"])
    for (yt, yp), sw in zip(pairs, weights):
        m.update_state(yt, yp, sample_weight=sw if case["sw"] else None)
    np.testing.assert_allclose(m.result().numpy(), case["value"], rtol=1e-5, atol=1e-6)
    config = m.get_config()
    config.pop("name")
    assert config == case["config"]
    assert [v.name.split("/")[-1].split(":")[0] for v in m.variables] == case["variables"]
    m.reset_state()
    assert all(not np.any(v.numpy()) for v in m.variables)
    # from its config, a metric starts afresh with the same settings
    again = type(m).from_config(m.get_config())
    assert again.get_config() == m.get_config()


@pytest.mark.parametrize("expr", list(METRICS))
def test_metric_matches_keras_in_function(expr):
    case = METRICS[expr]
    m = eval("metrics." + expr)
    pairs, weights = _batches(case["kind"])

    @tf.function
    def step(yt, yp, sw):
        m.update_state(yt, yp, sample_weight=sw if case["sw"] else None)
        return m.result()

    for (yt, yp), sw in zip(pairs, weights):
        out = step(tf.constant(yt), tf.constant(yp), tf.constant(sw))
    np.testing.assert_allclose(out.numpy(), case["value"], rtol=1e-5, atol=1e-6)


def _identity_model(n):
    """A model whose predictions are its inputs (a Dense layer with identity weights)."""
    model = tf.keras.Sequential([tf.keras.Input((n,)), tf.keras.layers.Dense(n)])
    model.set_weights([np.eye(n, dtype="float32"), np.zeros(n, "float32")])
    return model


@pytest.mark.parametrize(
    "expr",
    [e for e in METRICS if METRICS[e]["kind"] in ("b", "r")] + ["OneHotIoU(4, [1, 2])", "OneHotMeanIoU(4)"],
)
def test_metric_in_compiled_evaluate_and_fit(expr):
    """compile(metrics=[...]): evaluate and fit (learning rate 0, so the predictions stay the
    inputs) run the metric over the same two batches as the reference."""
    case = METRICS[expr]
    pairs, weights = _batches(case["kind"])
    y = np.concatenate([p[0] for p in pairs])
    x = np.concatenate([p[1] for p in pairs])
    sw = np.concatenate(weights) if case["sw"] else None
    model = _identity_model(x.shape[1])
    metric = eval("metrics." + expr)
    # Keras 3 weights only the weighted_metrics by the sample weights
    listed = {"weighted_metrics" if case["sw"] else "metrics": [metric]}
    model.compile(tf.keras.optimizers.SGD(0.0), loss="mse", **listed)
    result = model.evaluate(x, y, sample_weight=sw, batch_size=6, verbose=0, return_dict=True)
    key = metric.name
    np.testing.assert_allclose(np.asarray(result[key]), case["value"], rtol=1e-5, atol=1e-6)
    history = model.fit(x, y, sample_weight=sw, batch_size=6, epochs=1, shuffle=False, verbose=0).history
    np.testing.assert_allclose(np.asarray(history[key][0]), case["value"], rtol=1e-5, atol=1e-6)


def test_metric_names_and_lookup():
    assert isinstance(metrics.get("f1_score"), metrics.F1Score)
    assert isinstance(metrics.get("R2Score"), metrics.R2Score)
    assert isinstance(metrics.get("true_positives"), metrics.TruePositives)
    assert isinstance(metrics.get("binary_io_u"), metrics.BinaryIoU)
    assert isinstance(metrics.get("bce"), metrics.BinaryCrossentropy)
    assert metrics.MeanIoU(3).name.startswith("mean_io_u")
    assert metrics.MeanIoU(3).dtype == tf.int64
    assert metrics.binary_focal_crossentropy is losses.binary_focal_crossentropy
    m = metrics.deserialize(SERIALIZED[2])
    assert isinstance(m, metrics.F1Score) and m.average == "macro"
    m = serialization.deserialize_keras_object(SERIALIZED[3])
    assert isinstance(m, metrics.OneHotMeanIoU) and m.num_classes == 3


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: metrics.FBetaScore(beta=2), "beta"),
        (lambda: metrics.F1Score(average="samples"), "average"),
        (lambda: metrics.F1Score(threshold=1.5), "threshold"),
        (lambda: metrics.R2Score(class_aggregation="mean"), "class_aggregation"),
        (lambda: metrics.PrecisionAtRecall(1.5), "recall"),
        (lambda: metrics.IoU(3, [0, 3]), "out of range"),
        (lambda: metrics.SensitivityAtSpecificity(0.5, num_thresholds=0), "num_thresholds"),
    ],
)
def test_metric_arguments_are_checked(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_fscore_and_r2_need_2d_inputs():
    with pytest.raises(ValueError, match="2D inputs"):
        metrics.F1Score().update_state(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="2D inputs"):
        metrics.R2Score().update_state(np.ones((2, 3, 1)), np.ones((2, 3, 1)))


# --- losses ---------------------------------------------------------------------------------------


def _loss_data(name):
    if name in ("yb", "pb"):
        return _f32(DATA[name][0])
    if name == "ys":
        return np.asarray(LDATA["ys"])
    return _f32(LDATA[name])


@pytest.mark.parametrize("expr", list(LOSSES))
def test_loss_matches_keras(expr):
    case = LOSSES[expr]
    loss = eval("losses." + expr)
    yt, yp = _loss_data(case["t"]), _loss_data(case["p"])
    sw = _f32(LDATA["lw"]) if case["sw"] else None
    np.testing.assert_allclose(loss(yt, yp, sample_weight=sw).numpy(), case["value"], rtol=1e-5, atol=1e-6)
    traced = tf.function(lambda a, b: loss(a, b, sample_weight=None if sw is None else tf.constant(sw)))
    np.testing.assert_allclose(traced(tf.constant(yt), tf.constant(yp)).numpy(), case["value"], rtol=1e-5, atol=1e-6)
    assert loss.get_config() == case["config"]
    assert type(loss).from_config(loss.get_config()).get_config() == case["config"]


def test_loss_functions_and_names():
    yt, yp = _f32(DATA["yb"][0]), _f32(DATA["pb"][0])
    for name in ("binary_focal_crossentropy", "categorical_focal_crossentropy", "dice", "tversky"):
        assert losses.get(name) is getattr(losses, name)
    assert losses.get("bce") is losses.binary_crossentropy
    assert isinstance(losses.get("Dice"), losses.Dice)
    # the functions are the classes' per-sample values
    np.testing.assert_allclose(
        losses.dice(yt, yp, axis=-1).numpy(), losses.Dice(axis=-1, reduction=None)(yt, yp).numpy(), rtol=1e-6
    )
    # binary focal crossentropy with gamma=0 and no balancing is the binary crossentropy
    np.testing.assert_allclose(
        losses.binary_focal_crossentropy(yt, yp, gamma=0.0).numpy(),
        losses.binary_crossentropy(yt, yp).numpy(),
        rtol=1e-6,
    )
    with pytest.raises(ValueError, match="q must be"):
        losses.CategoricalGeneralizedCrossEntropy(q=1.0)


def test_loss_serialize_and_deserialize():
    assert losses.serialize(losses.Tversky(alpha=0.2)) == SERIALIZED[0]
    assert losses.serialize(losses.dice) == SERIALIZED[1]
    assert losses.deserialize(SERIALIZED[1]) is losses.dice
    t = losses.deserialize(SERIALIZED[0])
    assert isinstance(t, losses.Tversky) and t.get_config() == SERIALIZED[0]["config"]
    # a plain {"class_name", "config"} and a name, as Keras's deserialize takes them
    d = losses.deserialize({"class_name": "Dice", "config": {"name": "dice", "reduction": "sum", "axis": None}})
    assert isinstance(d, losses.Dice) and d.reduction == "sum"
    assert losses.deserialize("mse") is losses.mean_squared_error


@pytest.mark.parametrize("expr", list(FITS))
def test_loss_in_fit_matches_keras(expr):
    case = FITS[expr]
    y = {
        "yb": _f32(DATA["yb"]).reshape(12, 3),
        "oh": np.concatenate([_f32(LDATA["oh"])] * 2),
        "ys": np.concatenate([np.asarray(LDATA["ys"])] * 2),
    }[case["target"]]
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation=case["act"])])
    model.set_weights([_f32(FIT_W0), np.zeros(3, "float32")])
    model.compile(
        tf.keras.optimizers.SGD(0.5),
        loss=eval("losses." + expr),
        metrics=[metrics.F1Score(average="macro")] if case["target"] == "yb" else [],
    )
    history = model.fit(_f32(FIT_X), y, batch_size=6, epochs=2, shuffle=False, verbose=0).history
    assert sorted(history) == sorted(case["history"])
    for key, values in case["history"].items():
        np.testing.assert_allclose(history[key], values, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(model.weights[0].numpy(), case["kernel"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(model.weights[1].numpy(), case["bias"], rtol=1e-4, atol=1e-6)


# --- utils ----------------------------------------------------------------------------------------


def test_pad_sequences():
    seqs = [[1, 2, 3], [4], [], [5, 6, 7, 8]]
    out = utils.pad_sequences(seqs)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[0, 1, 2, 3], [0, 0, 0, 4], [0, 0, 0, 0], [5, 6, 7, 8]])
    out = utils.pad_sequences(seqs, maxlen=2, padding="post", truncating="post", value=-1)
    np.testing.assert_array_equal(out, [[1, 2], [4, -1], [-1, -1], [5, 6]])
    np.testing.assert_array_equal(utils.pad_sequences(seqs, maxlen=2), [[2, 3], [0, 4], [0, 0], [7, 8]])
    assert utils.pad_sequences(seqs, dtype="float32").dtype == np.float32
    with pytest.raises(ValueError, match="Padding type"):
        utils.pad_sequences(seqs, padding="middle")
    with pytest.raises(ValueError, match="dtype=object"):
        utils.pad_sequences([["a"]], value="x")


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], dtype="float32")
    np.testing.assert_allclose(utils.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(utils.normalize(x, order=1), [[3 / 7, 4 / 7], [0.0, 0.0]])
    out = utils.normalize(tf.constant(x))
    assert isinstance(out, tf.Tensor)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(tf.function(utils.normalize)(tf.constant(x)).numpy(), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(utils.normalize(tf.constant(x), axis=0).numpy(), [[1.0, 1.0], [0.0, 0.0]])


def test_split_dataset():
    xs = np.arange(20, dtype="float32").reshape(10, 2)
    ys = np.arange(10)
    left, right = utils.split_dataset((xs, ys), left_size=0.8)
    assert [int(y) for _, y in left] == list(range(8))
    assert [int(y) for _, y in right] == [8, 9]
    left, right = utils.split_dataset(xs, right_size=3)
    assert [e.numpy().tolist() for e in right] == xs[7:].tolist() and len(list(left)) == 7
    left, right = utils.split_dataset(tf.data.Dataset.from_tensor_slices(xs).batch(3), left_size=0.5)
    assert [e.numpy().shape[0] for e in left] == [3, 2]  # batched again as given
    left, right = utils.split_dataset((xs, ys), left_size=4, shuffle=True, seed=1)
    seen = sorted([int(y) for _, y in left] + [int(y) for _, y in right])
    assert seen == list(range(10))
    with pytest.raises(ValueError, match="At least one"):
        utils.split_dataset(xs)
    with pytest.raises(ValueError, match="left_size"):
        utils.split_dataset(xs, left_size=10)


def test_get_source_inputs_and_keras_tensors():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    out = tf.keras.layers.Add()([tf.keras.layers.Dense(2)(b), tf.keras.layers.Dense(2)(a)])
    assert [t.name for t in utils.get_source_inputs(out)] == ["b", "a"]
    assert utils.get_source_inputs(a) == [a]
    assert utils.is_keras_tensor(out) and not utils.is_keras_tensor(tf.constant(1.0))
    assert utils.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert utils.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)


def test_serialization_helpers_are_the_registry():
    for name in (
        "register_keras_serializable",
        "get_custom_objects",
        "custom_object_scope",
        "CustomObjectScope",
        "get_registered_name",
        "get_registered_object",
        "serialize_keras_object",
        "deserialize_keras_object",
    ):
        assert getattr(utils, name) is getattr(serialization, name)

    @utils.register_keras_serializable(package="mine")
    def my_metric(y_true, y_pred):
        return y_pred

    assert utils.get_registered_name(my_metric) == "mine>my_metric"
    assert utils.get_registered_object("mine>my_metric") is my_metric
    with utils.custom_object_scope({"Thing": dict}):
        assert utils.get_registered_object("Thing") is dict
    assert utils.get_registered_object("Thing") is None
    utils.clear_session()


class _Batches(utils.PyDataset):
    def __init__(self, x, y, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y = x, y
        self.epochs_ended = 0

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.x[i * 7 : (i + 1) * 7], self.y[i * 7 : (i + 1) * 7]

    def on_epoch_end(self):
        self.epochs_ended += 1


def test_py_dataset_in_fit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], dtype="float32")).astype("float32")
    data = _Batches(x, y)
    assert utils.Sequence is utils.PyDataset and data.num_batches == 3 and data.workers == 1
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(data, epochs=3, verbose=0).history
    assert len(history["loss"]) == 3 and history["loss"][-1] < history["loss"][0]
    assert data.epochs_ended == 4  # Keras also ends an epoch when fit resets the iterator first
    # the same batches as arrays give the same training
    ref = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    ref.set_weights([w.numpy() for w in model.weights])
    model.fit(data, epochs=1, verbose=0, shuffle=False)
    ref.compile(tf.keras.optimizers.SGD(0.1), "mse")
    ref.fit(x, y, batch_size=7, epochs=1, shuffle=False, verbose=0)
    np.testing.assert_allclose(model.weights[0].numpy(), ref.weights[0].numpy(), rtol=1e-5)
    assert model.predict(data, verbose=0).shape == (20, 1)
    assert _Batches(x, y, workers=4).workers == 4  # loaded by a thread pool, in index order
