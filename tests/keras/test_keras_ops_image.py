"""keras.ops.image against Keras 3.15 (TensorFlow backend): values on a small image (Keras's
outputs below, made with tests' inputs in the peer venv), both data formats, batched and
unbatched, eagerly and in a tf.function; argument checks; KerasTensors record Keras's
operations (``Resize``), and a functional model with one saves and loads."""

import numpy as np
import pytest

import tfunc as tf
from tfunc import keras

image = keras.ops.image
X = ((np.arange(36).reshape(3, 4, 3) * 7919) % 97 / 97).astype("float32")
XI = (X * 255).astype("uint8")
T = np.array([1.1, 0.2, -0.7, -0.1, 0.9, 0.8, 0, 0], "float32")
COORDS = ((np.arange(12).reshape(2, 2, 3) * 37) % 23 / 3 - 1.5).astype("float32")

# Keras 3.15 (TensorFlow 2.21) on X, XI, T, COORDS, channels_last, unbatched
KERAS = {
    "gray": np.array(
        [
            [[0.40692800283432007], [0.6233620047569275], [0.5408959984779358], [0.4584299921989441]],
            [[0.48996400833129883], [0.40749800205230713], [0.32503199577331543], [0.24256600439548492]],
            [[0.7470999956130981], [0.6646339893341064], [0.5821679830551147], [0.49970200657844543]],
        ],
        np.float32,
    ),
    "hsv": np.array(
        [
            [
                [0.4059140086174011, 1.0, 0.6391749978065491],
                [0.08333300054073334, 0.7865170240402222, 0.9175260066986084],
                [0.08333300054073334, 0.8641980290412903, 0.8350520133972168],
                [0.08333300054073334, 0.9589040279388428, 0.752577006816864],
            ],
            [
                [0.7607529759407043, 0.6739130020141602, 0.9484540224075317],
                [0.7607529759407043, 0.7380949854850769, 0.865979015827179],
                [0.7607529759407043, 0.815788984298706, 0.7835050225257874],
                [0.7607529759407043, 0.9117649793624878, 0.7010310292243958],
            ],
            [
                [0.4059140086174011, 0.6526319980621338, 0.9793810248374939],
                [0.4059140086174011, 0.7126439809799194, 0.8969069719314575],
                [0.4059140086174011, 0.7848100066184998, 0.8144329786300659],
                [0.4059140086174011, 0.8732389807701111, 0.7319589853286743],
            ],
        ],
        np.float32,
    ),
    "rgb": np.array(
        [
            [
                [0.27834999561309814, 0.1004360020160675, 0.1004360020160675],
                [0.19587600231170654, 0.08683200180530548, 0.14079199731349945],
                [0.11340200155973434, 0.05962400138378143, 0.11284799873828888],
                [0.025056999176740646, 0.01881200075149536, 0.030928000807762146],
            ],
            [
                [0.6611660122871399, 0.6551169753074646, 0.9484540224075317],
                [0.6695719957351685, 0.7627140283584595, 0.865979015827179],
                [0.6704220175743103, 0.7800080180168152, 0.7835050225257874],
                [0.6576679944992065, 0.7010310292243958, 0.6809139847755432],
            ],
            [
                [0.012753999792039394, 0.6185569763183594, 0.037735000252723694],
                [0.2733680009841919, 0.5360820293426514, 0.05526600033044815],
                [0.434565007686615, 0.4536080062389374, 0.0841749981045723],
                [0.3711340129375458, 0.25071001052856445, 0.09947899729013443],
            ],
        ],
        np.float32,
    ),
    "resize_bilinear": np.array(
        [
            [
                [0.1675260066986084, 0.5567010045051575, 0.44587600231170654],
                [0.6347939968109131, 0.4989689886569977, 0.38814398646354675],
                [0.7938140034675598, 0.43299001455307007, 0.32216501235961914],
                [0.7278349995613098, 0.3670099973678589, 0.25618600845336914],
                [0.6701030135154724, 0.3092780113220215, 0.19845399260520935],
            ],
            [
                [0.42267999053001404, 0.8118559718132019, 0.7010310292243958],
                [0.36494800448417664, 0.7541239857673645, 0.6432989835739136],
                [0.29896900057792664, 0.6881440281867981, 0.5773199796676636],
                [0.23298999667167664, 0.6221650242805481, 0.5113400220870972],
                [0.17525799572467804, 0.5644329786300659, 0.4536080062389374],
            ],
        ],
        np.float32,
    ),
    "resize_nearest": np.array(
        [
            [
                [0.0, 0.6391749978065491, 0.27834999561309814],
                [0.8350520133972168, 0.47422701120376587, 0.11340200155973434],
                [0.752577006816864, 0.3917529881000519, 0.030928000807762146],
            ],
            [
                [0.0, 0.6391749978065491, 0.27834999561309814],
                [0.8350520133972168, 0.47422701120376587, 0.11340200155973434],
                [0.752577006816864, 0.3917529881000519, 0.030928000807762146],
            ],
            [
                [0.6701030135154724, 0.3092780113220215, 0.9484540224075317],
                [0.5051550269126892, 0.1443299949169159, 0.7835050225257874],
                [0.42267999053001404, 0.06185600161552429, 0.7010310292243958],
            ],
            [
                [0.34020599722862244, 0.9793810248374939, 0.6185569763183594],
                [0.17525799572467804, 0.8144329786300659, 0.4536080062389374],
                [0.09278400242328644, 0.7319589853286743, 0.3711340129375458],
            ],
            [
                [0.34020599722862244, 0.9793810248374939, 0.6185569763183594],
                [0.17525799572467804, 0.8144329786300659, 0.4536080062389374],
                [0.09278400242328644, 0.7319589853286743, 0.3711340129375458],
            ],
        ],
        np.float32,
    ),
    "resize_uint8": np.array(
        [
            [[42, 141, 113], [161, 126, 98], [202, 110, 81], [185, 93, 64], [170, 78, 50]],
            [[107, 206, 178], [92, 192, 163], [76, 175, 146], [59, 158, 130], [44, 143, 115]],
        ],
        np.uint8,
    ),
    "resize_crop": np.array(
        [
            [
                [0.3344070017337799, 0.5360820293426514, 0.42525801062583923],
                [0.7731959819793701, 0.4123710095882416, 0.30154600739479065],
            ],
            [
                [0.40206199884414673, 0.7912369966506958, 0.6804119944572449],
                [0.2783510088920593, 0.6675260066986084, 0.5567010045051575],
            ],
        ],
        np.float32,
    ),
    "resize_pad": np.array(
        [
            [
                [0.5012890100479126, 0.5154640078544617, 0.40463900566101074],
                [0.7113400101661682, 0.3505150079727173, 0.23969100415706635],
            ],
            [
                [0.38144299387931824, 0.7706189751625061, 0.6597939729690552],
                [0.21649500727653503, 0.6056699752807617, 0.4948450028896332],
            ],
        ],
        np.float32,
    ),
    "affine_constant": np.array(
        [
            [
                [0.33582499623298645, 0.2875770032405853, 0.41933000087738037],
                [0.556082010269165, 0.3752579987049103, 0.7144330143928528],
                [0.6783499717712402, 0.3175260126590729, 0.5567010045051575],
                [0.6206179857254028, 0.2597939968109131, 0.39896899461746216],
            ],
            [
                [0.3445880115032196, 0.5141749978065491, 0.4837630093097687],
                [0.42267999053001404, 0.6618559956550598, 0.7010310292243958],
                [0.36494800448417664, 0.5041239857673645, 0.6432989835739136],
                [0.30721598863601685, 0.3463920056819916, 0.5855669975280762],
            ],
            [
                [0.27525800466537476, 0.4542270004749298, 0.35319599509239197],
                [0.2621130049228668, 0.5817009806632996, 0.4012889862060547],
                [0.21010300517082214, 0.593608021736145, 0.37711301445961],
                [0.13994799554347992, 0.5873709917068481, 0.3347940146923065],
            ],
        ],
        np.float32,
    ),
    "affine_reflect_nearest": np.array(
        [
            [
                [0.6701030135154724, 0.3092780113220215, 0.9484540224075317],
                [0.6701030135154724, 0.3092780113220215, 0.9484540224075317],
                [0.5051550269126892, 0.1443299949169159, 0.7835050225257874],
                [0.42267999053001404, 0.06185600161552429, 0.7010310292243958],
            ],
            [
                [0.34020599722862244, 0.9793810248374939, 0.6185569763183594],
                [0.25773200392723083, 0.8969069719314575, 0.5360820293426514],
                [0.17525799572467804, 0.8144329786300659, 0.4536080062389374],
                [0.42267999053001404, 0.06185600161552429, 0.7010310292243958],
            ],
            [
                [0.34020599722862244, 0.9793810248374939, 0.6185569763183594],
                [0.25773200392723083, 0.8969069719314575, 0.5360820293426514],
                [0.17525799572467804, 0.8144329786300659, 0.4536080062389374],
                [0.09278400242328644, 0.7319589853286743, 0.3711340129375458],
            ],
        ],
        np.float32,
    ),
    "affine_wrap": np.array(
        [
            [
                [0.4886600077152252, 0.1278350055217743, 0.5670099854469299],
                [0.556082010269165, 0.3752579987049103, 0.7144330143928528],
                [0.6783499717712402, 0.3175260126590729, 0.5567010045051575],
                [0.6206179857254028, 0.2597939968109131, 0.39896899461746216],
            ],
            [
                [0.19175300002098083, 0.5309280157089233, 0.470102995634079],
                [0.42267999053001404, 0.6618559956550598, 0.7010310292243958],
                [0.36494800448417664, 0.5041239857673645, 0.6432989835739136],
                [0.30721598863601685, 0.3463920056819916, 0.5855669975280762],
            ],
            [
                [0.752577006816864, 0.3917529881000519, 0.030928000807762146],
                [0.734021008014679, 0.5731959939002991, 0.21237100660800934],
                [0.8432989716529846, 0.4824739992618561, 0.12164899706840515],
                [0.0, 0.6391749978065491, 0.27834999561309814],
            ],
        ],
        np.float32,
    ),
    "blur": np.array(
        [
            [
                [0.20357899367809296, 0.17437100410461426, 0.18404200673103333],
                [0.32527101039886475, 0.20457099378108978, 0.22824600338935852],
                [0.36304399371147156, 0.21315699815750122, 0.27419498562812805],
                [0.30608201026916504, 0.145113006234169, 0.18697300553321838],
            ],
            [
                [0.32610300183296204, 0.3043760061264038, 0.33167698979377747],
                [0.3853740096092224, 0.3798980116844177, 0.40443798899650574],
                [0.3750799894332886, 0.400952011346817, 0.42549100518226624],
                [0.2862299978733063, 0.27307599782943726, 0.3003759980201721],
            ],
            [
                [0.18142299354076385, 0.2637380063533783, 0.3055979907512665],
                [0.21423499286174774, 0.31572800874710083, 0.37676501274108887],
                [0.18003499507904053, 0.30261901021003723, 0.3262929916381836],
                [0.11530400067567825, 0.2157900035381317, 0.22546200454235077],
            ],
        ],
        np.float32,
    ),
    "map_constant": np.array([[0.5, 0.5, 0.5], [0.5, 0.48253199458122253, 0.5]], np.float32),
    "map_reflect_nearest": np.array(
        [
            [0.09278400242328644, 0.34020599722862244, 0.8350520133972168],
            [0.8350520133972168, 0.25773200392723083, 0.42267999053001404],
        ],
        np.float32,
    ),
    "map_wrap": np.array(
        [
            [0.38144299387931824, 0.48711299896240234, 0.8487970232963562],
            [0.21649500727653503, 0.18900300562381744, 0.35395199060440063],
        ],
        np.float32,
    ),
}

IMAGE_CASES = {
    "gray": lambda x, **k: image.rgb_to_grayscale(x, **k),
    "hsv": lambda x, **k: image.rgb_to_hsv(x, **k),
    "rgb": lambda x, **k: image.hsv_to_rgb(x, **k),
    "resize_bilinear": lambda x, **k: image.resize(x, (2, 5), **k),
    "resize_nearest": lambda x, **k: image.resize(x, (5, 3), interpolation="nearest", **k),
    "resize_crop": lambda x, **k: image.resize(x, (2, 2), crop_to_aspect_ratio=True, **k),
    "resize_pad": lambda x, **k: image.resize(x, (2, 2), pad_to_aspect_ratio=True, fill_value=0.5, **k),
    "affine_constant": lambda x, **k: image.affine_transform(x, T, fill_value=0.25, **k),
    "affine_reflect_nearest": lambda x, **k: image.affine_transform(
        x, T, interpolation="nearest", fill_mode="reflect", **k
    ),
    "affine_wrap": lambda x, **k: image.affine_transform(x, T, fill_mode="wrap", **k),
    "blur": lambda x, **k: image.gaussian_blur(x, (3, 5), (1.0, 2.0), **k),
}


@pytest.mark.parametrize("name", sorted(IMAGE_CASES))
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
@pytest.mark.parametrize("batched", [False, True])
def test_image_functions_match_keras(name, data_format, batched):
    fn, expected = IMAGE_CASES[name], KERAS[name]
    x = X
    if data_format == "channels_first":
        x, expected = x.transpose(2, 0, 1), expected.transpose(2, 0, 1)
    if batched:  # two images: the same result for each
        x, expected = np.stack([x, x]), np.stack([expected, expected])
    eager = fn(x, data_format=data_format)
    traced = tf.function(lambda v: fn(v, data_format=data_format))(tf.constant(x))
    for out in (eager, traced):
        assert out.dtype == tf.float32 and out.shape == expected.shape
        np.testing.assert_allclose(out.numpy(), expected, atol=2e-6)


def test_integer_images_and_map_coordinates_match_keras():
    out = image.resize(XI, (2, 5))
    assert out.dtype == tf.uint8  # rounded and saturated back to the images' dtype
    np.testing.assert_array_equal(out.numpy(), KERAS["resize_uint8"])
    np.testing.assert_array_equal(image.rgb_to_grayscale(XI).dtype, tf.uint8)
    for name, order, mode, fill in (("map_constant", 1, "constant", 0.5), ("map_reflect_nearest", 0, "reflect", 0.0),
                                    ("map_wrap", 1, "wrap", 0.0)):  # fmt: skip
        for fn in (image.map_coordinates, tf.function(image.map_coordinates)):
            out = fn(X[..., 0], COORDS, order, fill_mode=mode, fill_value=fill)
            np.testing.assert_allclose(np.asarray(out), KERAS[name], atol=2e-6)


def test_pad_and_crop_images_are_slices():
    x = np.random.default_rng(1).random((2, 7, 5, 3)).astype("float32")
    padded = image.pad_images(x, 1, 2, target_height=10, target_width=8)
    np.testing.assert_array_equal(padded.numpy(), np.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
    first = image.pad_images(
        x[0].transpose(2, 0, 1), 1, 2, bottom_padding=2, right_padding=1, data_format="channels_first"
    )
    np.testing.assert_array_equal(first.numpy(), np.pad(x[0].transpose(2, 0, 1), [[0, 0], [1, 2], [2, 1]]))
    cropped = tf.function(lambda v: image.crop_images(v, 1, 2, target_height=4, target_width=2))(x)
    np.testing.assert_array_equal(cropped.numpy(), x[:, 1:5, 2:4])
    cf = image.crop_images(
        x.transpose(0, 3, 1, 2), 1, 1, bottom_cropping=2, right_cropping=1, data_format="channels_first"
    )
    np.testing.assert_array_equal(cf.numpy(), x.transpose(0, 3, 1, 2)[:, :, 1:5, 1:4])
    with pytest.raises(ValueError, match="exactly two"):
        image.pad_images(x, 1, 2, bottom_padding=1, target_height=10, target_width=8)
    with pytest.raises(ValueError, match="top_cropping must be >= 0"):
        image.crop_images(x, target_height=9, bottom_cropping=0, left_cropping=0, right_cropping=0)


@pytest.mark.parametrize("in_function", [False, True])
def test_projective_terms_divide_the_coordinates(in_function):
    # ImageProjectiveTransformV3: output x reads input x / (c0 x + 1); where c0 x + 1 is 0 (x = 4
    # for c0 = -0.25) the pixel is fill_value whatever the fill mode
    columns = np.tile(np.arange(6, dtype=np.float32), (1, 3, 1))[..., None]  # each pixel: its x
    transform = np.array([1, 0, 0, 0, 1, 0, -0.25, 0], np.float32)
    run = tf.function(image.affine_transform) if in_function else image.affine_transform
    got = np.asarray(run(columns, transform, interpolation="nearest", fill_mode="nearest", fill_value=-1.0))
    xs = np.arange(6, dtype=np.float32)
    with np.errstate(divide="ignore"):
        source = xs / (1 - 0.25 * xs)
    want = np.where(xs == 4, -1.0, np.clip(np.floor(np.abs(source) + 0.5) * np.sign(source), 0, 5))
    np.testing.assert_array_equal(got[0, :, :, 0], np.tile(want, (3, 1)))


def test_argument_checks_are_keras():
    with pytest.raises(ValueError, match="Invalid images rank"):
        image.resize(X[0], (2, 2))
    with pytest.raises(ValueError, match="Only one of"):
        image.resize(X, (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="interpolation"):
        image.affine_transform(X, T, interpolation="bicubic")
    with pytest.raises(ValueError, match="fill_mode"):
        image.affine_transform(X, T, fill_mode="mirror")
    with pytest.raises(ValueError, match="float dtype"):
        image.rgb_to_hsv(XI)
    with pytest.raises(NotImplementedError):
        image.map_coordinates(X[..., 0], COORDS, 2)


def test_keras_tensors_record_keras_operations(tmp_path):
    inputs = keras.Input((6, 4, 3))
    outputs = image.resize(inputs, (3, 2))
    model = keras.Model(inputs, outputs)
    recorded = model.get_config()["layers"][1]  # what Keras 3.15 loads (checked with Keras)
    assert (recorded["module"], recorded["class_name"]) == ("keras.src.ops.image", "Resize")
    assert recorded["config"]["size"] in ([3, 2], (3, 2))
    x = np.random.default_rng(2).random((2, 6, 4, 3)).astype("float32")
    np.testing.assert_allclose(model(x).numpy(), image.resize(x, (3, 2)).numpy())
    path = str(tmp_path / "resize.keras")
    model.save(path)
    again = keras.models.load_model(path)
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy())
    gray = keras.Model(inputs, image.rgb_to_grayscale(inputs))
    assert gray.get_config()["layers"][1]["class_name"] == "RGBToGrayscale"
    # a config as Keras 3.15 writes it (every argument) loads
    config = model.get_config()
    config["layers"][1]["config"].update(
        interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
        fill_mode="constant", fill_value=0.0, data_format=None,
    )  # fmt: skip
    np.testing.assert_allclose(keras.Model.from_config(config)(x).numpy(), model(x).numpy())
