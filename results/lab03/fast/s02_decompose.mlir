#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x256xf32>
    %1 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %0) -> (tensor<256x256xf32>) {
      %4 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %extracted_slice = tensor.extract_slice %arg6[%arg3, %arg5] [8, 32] [1, 1] : tensor<256x256xf32> to tensor<8x32xf32>
        %5 = linalg.fill {lab03.tile_group = 0 : i64} ins(%cst : f32) outs(%extracted_slice : tensor<8x32xf32>) -> tensor<8x32xf32>
        %inserted_slice = tensor.insert_slice %5 into %arg6[%arg3, %arg5] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<256x256xf32>
        scf.yield %inserted_slice : tensor<256x256xf32>
      }
      scf.yield %4 : tensor<256x256xf32>
    }
    %2 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %4 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %5 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %arg6) -> (tensor<256x256xf32>) {
          %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg7] [8, 1] [1, 1] : tensor<256x256xf32> to tensor<8x1xf32>
          %extracted_slice_0 = tensor.extract_slice %arg1[%arg7, %arg5] [1, 32] [1, 1] : tensor<256x256xf32> to tensor<1x32xf32>
          %extracted_slice_1 = tensor.extract_slice %arg8[%arg3, %arg5] [8, 32] [1, 1] : tensor<256x256xf32> to tensor<8x32xf32>
          %6 = linalg.matmul {lab03.tile_group = 1 : i64} ins(%extracted_slice, %extracted_slice_0 : tensor<8x1xf32>, tensor<1x32xf32>) outs(%extracted_slice_1 : tensor<8x32xf32>) -> tensor<8x32xf32>
          %inserted_slice = tensor.insert_slice %6 into %arg8[%arg3, %arg5] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<256x256xf32>
          scf.yield %inserted_slice : tensor<256x256xf32>
        }
        scf.yield %5 : tensor<256x256xf32>
      }
      scf.yield %4 : tensor<256x256xf32>
    }
    %3 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %0) -> (tensor<256x256xf32>) {
      %4 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %extracted_slice = tensor.extract_slice %2[%arg3, %arg5] [8, 32] [1, 1] : tensor<256x256xf32> to tensor<8x32xf32>
        %extracted_slice_0 = tensor.extract_slice %arg2[%arg5] [32] [1] : tensor<256xf32> to tensor<32xf32>
        %extracted_slice_1 = tensor.extract_slice %arg6[%arg3, %arg5] [8, 32] [1, 1] : tensor<256x256xf32> to tensor<8x32xf32>
        %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice, %extracted_slice_0 : tensor<8x32xf32>, tensor<32xf32>) outs(%extracted_slice_1 : tensor<8x32xf32>) attrs =  {lab03.tile_group = 0 : i64} {
        ^bb0(%in: f32, %in_2: f32, %out: f32):
          %6 = arith.addf %in, %in_2 : f32
          %7 = arith.maximumf %6, %cst : f32
          linalg.yield %7 : f32
        } -> tensor<8x32xf32>
        %inserted_slice = tensor.insert_slice %5 into %arg6[%arg3, %arg5] [8, 32] [1, 1] : tensor<8x32xf32> into tensor<256x256xf32>
        scf.yield %inserted_slice : tensor<256x256xf32>
      }
      scf.yield %4 : tensor<256x256xf32>
    }
    return %3 : tensor<256x256xf32>
  }
}
