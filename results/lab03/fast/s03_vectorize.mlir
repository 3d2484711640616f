#map = affine_map<(d0) -> (d0 * 64)>
#map1 = affine_map<(d0)[s0] -> (d0 * 64 + s0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %0 = ub.poison : f32
    %cst = arith.constant dense<0.000000e+00> : vector<4x16xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : vector<6x16xf32>
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c252 = arith.constant 252 : index
    %c16 = arith.constant 16 : index
    %c6 = arith.constant 6 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %1 = tensor.empty() : tensor<256x256xf32>
    %2 = scf.for %arg3 = %c0 to %c252 step %c6 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %7 = scf.for %arg5 = %c0 to %c256 step %c16 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %8 = vector.transfer_write %cst_0, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<6x16xf32>, tensor<256x256xf32>
        scf.yield %8 : tensor<256x256xf32>
      }
      scf.yield %7 : tensor<256x256xf32>
    }
    %3 = scf.for %arg3 = %c0 to %c256 step %c16 iter_args(%arg4 = %2) -> (tensor<256x256xf32>) {
      %7 = vector.transfer_write %cst, %arg4[%c252, %arg3] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<256x256xf32>
      scf.yield %7 : tensor<256x256xf32>
    }
    %4 = scf.forall (%arg3) in (4) shared_outs(%arg4 = %3) -> (tensor<256x256xf32>) {
      %7 = affine.apply #map(%arg3)
      %extracted_slice = tensor.extract_slice %arg4[0, %7] [256, 64] [1, 1] : tensor<256x256xf32> to tensor<256x64xf32>
      %8 = scf.for %arg5 = %c0 to %c252 step %c6 iter_args(%arg6 = %extracted_slice) -> (tensor<256x64xf32>) {
        %10 = scf.for %arg7 = %c0 to %c64 step %c16 iter_args(%arg8 = %arg6) -> (tensor<256x64xf32>) {
          %11 = scf.for %arg9 = %c0 to %c256 step %c1 iter_args(%arg10 = %arg8) -> (tensor<256x64xf32>) {
            %12 = vector.transfer_read %arg0[%arg5, %arg9], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<6x1xf32>
            %13 = affine.apply #map1(%arg3)[%arg7]
            %14 = vector.transfer_read %arg1[%arg9, %13], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x16xf32>
            %15 = vector.transfer_read %arg10[%arg5, %arg7], %0 {in_bounds = [true, true]} : tensor<256x64xf32>, vector<6x16xf32>
            %16 = vector.contract {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %12, %14, %15 : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
            %17 = vector.transfer_write %16, %arg10[%arg5, %arg7] {in_bounds = [true, true]} : vector<6x16xf32>, tensor<256x64xf32>
            scf.yield %17 : tensor<256x64xf32>
          }
          scf.yield %11 : tensor<256x64xf32>
        }
        scf.yield %10 : tensor<256x64xf32>
      }
      %9 = scf.for %arg5 = %c0 to %c64 step %c16 iter_args(%arg6 = %8) -> (tensor<256x64xf32>) {
        %10 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %arg6) -> (tensor<256x64xf32>) {
          %11 = vector.transfer_read %arg0[%c252, %arg7], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<4x1xf32>
          %12 = affine.apply #map1(%arg3)[%arg5]
          %13 = vector.transfer_read %arg1[%arg7, %12], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x16xf32>
          %14 = vector.transfer_read %arg8[%c252, %arg5], %0 {in_bounds = [true, true]} : tensor<256x64xf32>, vector<4x16xf32>
          %15 = vector.contract {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %11, %13, %14 : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
          %16 = vector.transfer_write %15, %arg8[%c252, %arg5] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<256x64xf32>
          scf.yield %16 : tensor<256x64xf32>
        }
        scf.yield %10 : tensor<256x64xf32>
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %9 into %arg4[0, %7] [256, 64] [1, 1] : tensor<256x64xf32> into tensor<256x256xf32>
      }
    }
    %5 = scf.for %arg3 = %c0 to %c252 step %c6 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %7 = scf.for %arg5 = %c0 to %c256 step %c16 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %8 = vector.transfer_read %4[%arg3, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<6x16xf32>
        %9 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : tensor<256xf32>, vector<16xf32>
        %10 = vector.broadcast %9 : vector<16xf32> to vector<6x16xf32>
        %11 = arith.addf %8, %10 : vector<6x16xf32>
        %12 = arith.maximumf %11, %cst_0 : vector<6x16xf32>
        %13 = vector.transfer_write %12, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<6x16xf32>, tensor<256x256xf32>
        scf.yield %13 : tensor<256x256xf32>
      }
      scf.yield %7 : tensor<256x256xf32>
    }
    %6 = scf.for %arg3 = %c0 to %c256 step %c16 iter_args(%arg4 = %5) -> (tensor<256x256xf32>) {
      %7 = vector.transfer_read %4[%c252, %arg3], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<4x16xf32>
      %8 = vector.transfer_read %arg2[%arg3], %0 {in_bounds = [true]} : tensor<256xf32>, vector<16xf32>
      %9 = vector.broadcast %8 : vector<16xf32> to vector<4x16xf32>
      %10 = arith.addf %7, %9 : vector<4x16xf32>
      %11 = arith.maximumf %10, %cst : vector<4x16xf32>
      %12 = vector.transfer_write %11, %arg4[%c252, %arg3] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<256x256xf32>
      scf.yield %12 : tensor<256x256xf32>
    }
    return %6 : tensor<256x256xf32>
  }
}
