#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %0 = ub.poison : f32
    %cst = arith.constant dense<0.000000e+00> : vector<8x32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %1 = tensor.empty() : tensor<256x256xf32>
    %2 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_write %cst, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %6 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    %3 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %2) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_read %arg6[%arg3, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x32xf32>
        %7 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %6) -> (vector<8x32xf32>) {
          %9 = vector.transfer_read %arg0[%arg3, %arg7], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x1xf32>
          %10 = vector.transfer_read %arg1[%arg7, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x32xf32>
          %11 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %9, %10, %arg8 : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
          scf.yield %11 : vector<8x32xf32>
        }
        %8 = vector.transfer_write %7, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %8 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    %4 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_read %3[%arg3, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x32xf32>
        %7 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : tensor<256xf32>, vector<32xf32>
        %8 = vector.broadcast %7 : vector<32xf32> to vector<8x32xf32>
        %9 = arith.addf %6, %8 : vector<8x32xf32>
        %10 = arith.maximumf %9, %cst : vector<8x32xf32>
        %11 = vector.transfer_write %10, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %11 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    return %4 : tensor<256x256xf32>
  }
}
