#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x256xf32>
    %1 = linalg.fill {lab03.tile_group = 0 : i64} ins(%cst : f32) outs(%0 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %2 = linalg.matmul {lab03.tile_group = 1 : i64} ins(%arg0, %arg1 : tensor<256x256xf32>, tensor<256x256xf32>) outs(%1 : tensor<256x256xf32>) -> tensor<256x256xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<256x256xf32>, tensor<256xf32>) outs(%0 : tensor<256x256xf32>) attrs =  {lab03.tile_group = 0 : i64} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.addf %in, %in_0 : f32
      %5 = arith.maximumf %4, %cst : f32
      linalg.yield %5 : f32
    } -> tensor<256x256xf32>
    return %3 : tensor<256x256xf32>
  }
}
