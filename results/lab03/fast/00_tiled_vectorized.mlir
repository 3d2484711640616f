#map = affine_map<(d0) -> (d0 * 64)>
#map1 = affine_map<(d0)[s0] -> (d0 * 64 + s0)>
module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> attributes {lab03.num_results = 1 : i64, llvm.emit_c_interface} {
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
          %11 = vector.transfer_read %arg8[%arg5, %arg7], %0 {in_bounds = [true, true]} : tensor<256x64xf32>, vector<6x16xf32>
          %12 = scf.for %arg9 = %c0 to %c256 step %c1 iter_args(%arg10 = %11) -> (vector<6x16xf32>) {
            %14 = vector.transfer_read %arg0[%arg5, %arg9], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<6x1xf32>
            %15 = affine.apply #map1(%arg3)[%arg7]
            %16 = vector.transfer_read %arg1[%arg9, %15], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x16xf32>
            %17 = vector.extract %16[0] : vector<16xf32> from vector<1x16xf32>
            %18 = vector.extract %14[0, 0] : f32 from vector<6x1xf32>
            %19 = vector.broadcast %18 : f32 to vector<16xf32>
            %20 = vector.extract %arg10[0] : vector<16xf32> from vector<6x16xf32>
            %21 = vector.fma %19, %17, %20 : vector<16xf32>
            %22 = vector.extract %14[1, 0] : f32 from vector<6x1xf32>
            %23 = vector.broadcast %22 : f32 to vector<16xf32>
            %24 = vector.extract %arg10[1] : vector<16xf32> from vector<6x16xf32>
            %25 = vector.fma %23, %17, %24 : vector<16xf32>
            %26 = vector.extract %14[2, 0] : f32 from vector<6x1xf32>
            %27 = vector.broadcast %26 : f32 to vector<16xf32>
            %28 = vector.extract %arg10[2] : vector<16xf32> from vector<6x16xf32>
            %29 = vector.fma %27, %17, %28 : vector<16xf32>
            %30 = vector.extract %14[3, 0] : f32 from vector<6x1xf32>
            %31 = vector.broadcast %30 : f32 to vector<16xf32>
            %32 = vector.extract %arg10[3] : vector<16xf32> from vector<6x16xf32>
            %33 = vector.fma %31, %17, %32 : vector<16xf32>
            %34 = vector.extract %14[4, 0] : f32 from vector<6x1xf32>
            %35 = vector.broadcast %34 : f32 to vector<16xf32>
            %36 = vector.extract %arg10[4] : vector<16xf32> from vector<6x16xf32>
            %37 = vector.fma %35, %17, %36 : vector<16xf32>
            %38 = vector.extract %14[5, 0] : f32 from vector<6x1xf32>
            %39 = vector.broadcast %38 : f32 to vector<16xf32>
            %40 = vector.extract %arg10[5] : vector<16xf32> from vector<6x16xf32>
            %41 = vector.fma %39, %17, %40 : vector<16xf32>
            %42:16 = vector.to_elements %21 : vector<16xf32>
            %43:16 = vector.to_elements %25 : vector<16xf32>
            %44:16 = vector.to_elements %29 : vector<16xf32>
            %45:16 = vector.to_elements %33 : vector<16xf32>
            %46:16 = vector.to_elements %37 : vector<16xf32>
            %47:16 = vector.to_elements %41 : vector<16xf32>
            %48 = vector.from_elements %42#0, %42#1, %42#2, %42#3, %42#4, %42#5, %42#6, %42#7, %42#8, %42#9, %42#10, %42#11, %42#12, %42#13, %42#14, %42#15, %43#0, %43#1, %43#2, %43#3, %43#4, %43#5, %43#6, %43#7, %43#8, %43#9, %43#10, %43#11, %43#12, %43#13, %43#14, %43#15, %44#0, %44#1, %44#2, %44#3, %44#4, %44#5, %44#6, %44#7, %44#8, %44#9, %44#10, %44#11, %44#12, %44#13, %44#14, %44#15, %45#0, %45#1, %45#2, %45#3, %45#4, %45#5, %45#6, %45#7, %45#8, %45#9, %45#10, %45#11, %45#12, %45#13, %45#14, %45#15, %46#0, %46#1, %46#2, %46#3, %46#4, %46#5, %46#6, %46#7, %46#8, %46#9, %46#10, %46#11, %46#12, %46#13, %46#14, %46#15, %47#0, %47#1, %47#2, %47#3, %47#4, %47#5, %47#6, %47#7, %47#8, %47#9, %47#10, %47#11, %47#12, %47#13, %47#14, %47#15 : vector<6x16xf32>
            scf.yield %48 : vector<6x16xf32>
          }
          %13 = vector.transfer_write %12, %arg8[%arg5, %arg7] {in_bounds = [true, true]} : vector<6x16xf32>, tensor<256x64xf32>
          scf.yield %13 : tensor<256x64xf32>
        }
        scf.yield %10 : tensor<256x64xf32>
      }
      %9 = scf.for %arg5 = %c0 to %c64 step %c16 iter_args(%arg6 = %8) -> (tensor<256x64xf32>) {
        %10 = vector.transfer_read %arg6[%c252, %arg5], %0 {in_bounds = [true, true]} : tensor<256x64xf32>, vector<4x16xf32>
        %11 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %10) -> (vector<4x16xf32>) {
          %13 = vector.transfer_read %arg0[%c252, %arg7], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<4x1xf32>
          %14 = affine.apply #map1(%arg3)[%arg5]
          %15 = vector.transfer_read %arg1[%arg7, %14], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x16xf32>
          %16 = vector.extract %15[0] : vector<16xf32> from vector<1x16xf32>
          %17 = vector.extract %13[0, 0] : f32 from vector<4x1xf32>
          %18 = vector.broadcast %17 : f32 to vector<16xf32>
          %19 = vector.extract %arg8[0] : vector<16xf32> from vector<4x16xf32>
          %20 = vector.fma %18, %16, %19 : vector<16xf32>
          %21 = vector.extract %13[1, 0] : f32 from vector<4x1xf32>
          %22 = vector.broadcast %21 : f32 to vector<16xf32>
          %23 = vector.extract %arg8[1] : vector<16xf32> from vector<4x16xf32>
          %24 = vector.fma %22, %16, %23 : vector<16xf32>
          %25 = vector.extract %13[2, 0] : f32 from vector<4x1xf32>
          %26 = vector.broadcast %25 : f32 to vector<16xf32>
          %27 = vector.extract %arg8[2] : vector<16xf32> from vector<4x16xf32>
          %28 = vector.fma %26, %16, %27 : vector<16xf32>
          %29 = vector.extract %13[3, 0] : f32 from vector<4x1xf32>
          %30 = vector.broadcast %29 : f32 to vector<16xf32>
          %31 = vector.extract %arg8[3] : vector<16xf32> from vector<4x16xf32>
          %32 = vector.fma %30, %16, %31 : vector<16xf32>
          %33:16 = vector.to_elements %20 : vector<16xf32>
          %34:16 = vector.to_elements %24 : vector<16xf32>
          %35:16 = vector.to_elements %28 : vector<16xf32>
          %36:16 = vector.to_elements %32 : vector<16xf32>
          %37 = vector.from_elements %33#0, %33#1, %33#2, %33#3, %33#4, %33#5, %33#6, %33#7, %33#8, %33#9, %33#10, %33#11, %33#12, %33#13, %33#14, %33#15, %34#0, %34#1, %34#2, %34#3, %34#4, %34#5, %34#6, %34#7, %34#8, %34#9, %34#10, %34#11, %34#12, %34#13, %34#14, %34#15, %35#0, %35#1, %35#2, %35#3, %35#4, %35#5, %35#6, %35#7, %35#8, %35#9, %35#10, %35#11, %35#12, %35#13, %35#14, %35#15, %36#0, %36#1, %36#2, %36#3, %36#4, %36#5, %36#6, %36#7, %36#8, %36#9, %36#10, %36#11, %36#12, %36#13, %36#14, %36#15 : vector<4x16xf32>
          scf.yield %37 : vector<4x16xf32>
        }
        %12 = vector.transfer_write %11, %arg6[%c252, %arg5] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<256x64xf32>
        scf.yield %12 : tensor<256x64xf32>
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
