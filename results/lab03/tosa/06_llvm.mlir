module {
  llvm.func @free(!llvm.ptr)
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64, %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64, %arg19: !llvm.ptr, %arg20: !llvm.ptr, %arg21: i64, %arg22: i64, %arg23: i64, %arg24: i64, %arg25: i64) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.insertvalue %arg19, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.insertvalue %arg20, %1[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.insertvalue %arg21, %2[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.insertvalue %arg22, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.insertvalue %arg24, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.insertvalue %arg23, %5[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.insertvalue %arg25, %6[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %9 = llvm.insertvalue %arg14, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg15, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg16, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.insertvalue %arg17, %11[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %13 = llvm.insertvalue %arg18, %12[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %14 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %15 = llvm.insertvalue %arg7, %14[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %arg8, %15[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %arg9, %16[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %arg10, %17[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %arg12, %18[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %arg11, %19[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = llvm.insertvalue %arg13, %20[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %22 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.insertvalue %arg0, %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.insertvalue %arg1, %23[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.insertvalue %arg2, %24[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.insertvalue %arg3, %25[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.insertvalue %arg5, %26[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.insertvalue %arg4, %27[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.insertvalue %arg6, %28[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %30 = llvm.mlir.constant(256 : index) : i64
    %31 = llvm.mlir.constant(1 : index) : i64
    %32 = llvm.mlir.constant(0 : index) : i64
    %33 = llvm.mlir.constant(3.40282347E+38 : f32) : f32
    %34 = llvm.mlir.constant(0.000000e+00 : f32) : f32
    %35 = llvm.extractvalue %29[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %36 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %37 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
    %38 = llvm.insertvalue %35, %37[0] : !llvm.struct<(ptr, ptr, i64)> 
    %39 = llvm.insertvalue %36, %38[1] : !llvm.struct<(ptr, ptr, i64)> 
    %40 = llvm.mlir.constant(0 : index) : i64
    %41 = llvm.insertvalue %40, %39[2] : !llvm.struct<(ptr, ptr, i64)> 
    %42 = llvm.extractvalue %29[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %43 = llvm.extractvalue %29[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %44 = llvm.extractvalue %29[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %45 = llvm.extractvalue %29[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %46 = llvm.extractvalue %29[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %47 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %48 = llvm.extractvalue %41[0] : !llvm.struct<(ptr, ptr, i64)> 
    %49 = llvm.extractvalue %41[1] : !llvm.struct<(ptr, ptr, i64)> 
    %50 = llvm.insertvalue %48, %47[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %51 = llvm.insertvalue %49, %50[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %52 = llvm.mlir.constant(0 : index) : i64
    %53 = llvm.insertvalue %52, %51[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %54 = llvm.mlir.constant(1 : index) : i64
    %55 = llvm.insertvalue %54, %53[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %56 = llvm.mlir.constant(65536 : index) : i64
    %57 = llvm.insertvalue %56, %55[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %58 = llvm.mlir.constant(256 : index) : i64
    %59 = llvm.insertvalue %58, %57[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %60 = llvm.mlir.constant(256 : index) : i64
    %61 = llvm.insertvalue %60, %59[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %62 = llvm.mlir.constant(256 : index) : i64
    %63 = llvm.insertvalue %62, %61[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %64 = llvm.mlir.constant(1 : index) : i64
    %65 = llvm.insertvalue %64, %63[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %66 = llvm.extractvalue %21[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %67 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %68 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
    %69 = llvm.insertvalue %66, %68[0] : !llvm.struct<(ptr, ptr, i64)> 
    %70 = llvm.insertvalue %67, %69[1] : !llvm.struct<(ptr, ptr, i64)> 
    %71 = llvm.mlir.constant(0 : index) : i64
    %72 = llvm.insertvalue %71, %70[2] : !llvm.struct<(ptr, ptr, i64)> 
    %73 = llvm.extractvalue %21[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %74 = llvm.extractvalue %21[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %75 = llvm.extractvalue %21[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %76 = llvm.extractvalue %21[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %77 = llvm.extractvalue %21[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %78 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %79 = llvm.extractvalue %72[0] : !llvm.struct<(ptr, ptr, i64)> 
    %80 = llvm.extractvalue %72[1] : !llvm.struct<(ptr, ptr, i64)> 
    %81 = llvm.insertvalue %79, %78[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %82 = llvm.insertvalue %80, %81[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %83 = llvm.mlir.constant(0 : index) : i64
    %84 = llvm.insertvalue %83, %82[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %85 = llvm.mlir.constant(1 : index) : i64
    %86 = llvm.insertvalue %85, %84[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %87 = llvm.mlir.constant(65536 : index) : i64
    %88 = llvm.insertvalue %87, %86[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %89 = llvm.mlir.constant(256 : index) : i64
    %90 = llvm.insertvalue %89, %88[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %91 = llvm.mlir.constant(256 : index) : i64
    %92 = llvm.insertvalue %91, %90[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %93 = llvm.mlir.constant(256 : index) : i64
    %94 = llvm.insertvalue %93, %92[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %95 = llvm.mlir.constant(1 : index) : i64
    %96 = llvm.insertvalue %95, %94[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %97 = llvm.mlir.constant(1 : index) : i64
    %98 = llvm.mlir.constant(256 : index) : i64
    %99 = llvm.mlir.constant(256 : index) : i64
    %100 = llvm.mlir.constant(1 : index) : i64
    %101 = llvm.mlir.constant(65536 : index) : i64
    %102 = llvm.mlir.constant(65536 : index) : i64
    %103 = llvm.mlir.zero : !llvm.ptr
    %104 = llvm.getelementptr %103[%102] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %105 = llvm.ptrtoint %104 : !llvm.ptr to i64
    %106 = llvm.mlir.constant(64 : index) : i64
    %107 = llvm.add %105, %106 : i64
    %108 = llvm.call @malloc(%107) : (i64) -> !llvm.ptr
    %109 = llvm.ptrtoint %108 : !llvm.ptr to i64
    %110 = llvm.mlir.constant(1 : index) : i64
    %111 = llvm.sub %106, %110 : i64
    %112 = llvm.add %109, %111 : i64
    %113 = llvm.urem %112, %106 : i64
    %114 = llvm.sub %112, %113 : i64
    %115 = llvm.inttoptr %114 : i64 to !llvm.ptr
    %116 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %117 = llvm.insertvalue %108, %116[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %118 = llvm.insertvalue %115, %117[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %119 = llvm.mlir.constant(0 : index) : i64
    %120 = llvm.insertvalue %119, %118[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %121 = llvm.insertvalue %97, %120[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %122 = llvm.insertvalue %98, %121[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %123 = llvm.insertvalue %99, %122[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %124 = llvm.insertvalue %101, %123[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %125 = llvm.insertvalue %99, %124[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %126 = llvm.insertvalue %100, %125[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.br ^bb1(%32 : i64)
  ^bb1(%127: i64):  // 2 preds: ^bb0, ^bb8
    %128 = llvm.icmp "slt" %127, %31 : i64
    llvm.cond_br %128, ^bb2, ^bb9
  ^bb2:  // pred: ^bb1
    llvm.br ^bb3(%32 : i64)
  ^bb3(%129: i64):  // 2 preds: ^bb2, ^bb7
    %130 = llvm.icmp "slt" %129, %30 : i64
    llvm.cond_br %130, ^bb4, ^bb8
  ^bb4:  // pred: ^bb3
    llvm.br ^bb5(%32 : i64)
  ^bb5(%131: i64):  // 2 preds: ^bb4, ^bb6
    %132 = llvm.icmp "slt" %131, %30 : i64
    llvm.cond_br %132, ^bb6, ^bb7
  ^bb6:  // pred: ^bb5
    %133 = llvm.extractvalue %126[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %134 = llvm.mlir.constant(65536 : index) : i64
    %135 = llvm.mul %127, %134 overflow<nsw, nuw> : i64
    %136 = llvm.mlir.constant(256 : index) : i64
    %137 = llvm.mul %129, %136 overflow<nsw, nuw> : i64
    %138 = llvm.add %135, %137 overflow<nsw, nuw> : i64
    %139 = llvm.add %138, %131 overflow<nsw, nuw> : i64
    %140 = llvm.getelementptr inbounds|nuw %133[%139] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %34, %140 : f32, !llvm.ptr
    %141 = llvm.add %131, %31 : i64
    llvm.br ^bb5(%141 : i64)
  ^bb7:  // pred: ^bb5
    %142 = llvm.add %129, %31 : i64
    llvm.br ^bb3(%142 : i64)
  ^bb8:  // pred: ^bb3
    %143 = llvm.add %127, %31 : i64
    llvm.br ^bb1(%143 : i64)
  ^bb9:  // pred: ^bb1
    llvm.br ^bb10(%32 : i64)
  ^bb10(%144: i64):  // 2 preds: ^bb9, ^bb20
    %145 = llvm.icmp "slt" %144, %31 : i64
    llvm.cond_br %145, ^bb11, ^bb21
  ^bb11:  // pred: ^bb10
    llvm.br ^bb12(%32 : i64)
  ^bb12(%146: i64):  // 2 preds: ^bb11, ^bb19
    %147 = llvm.icmp "slt" %146, %30 : i64
    llvm.cond_br %147, ^bb13, ^bb20
  ^bb13:  // pred: ^bb12
    llvm.br ^bb14(%32 : i64)
  ^bb14(%148: i64):  // 2 preds: ^bb13, ^bb18
    %149 = llvm.icmp "slt" %148, %30 : i64
    llvm.cond_br %149, ^bb15, ^bb19
  ^bb15:  // pred: ^bb14
    llvm.br ^bb16(%32 : i64)
  ^bb16(%150: i64):  // 2 preds: ^bb15, ^bb17
    %151 = llvm.icmp "slt" %150, %30 : i64
    llvm.cond_br %151, ^bb17, ^bb18
  ^bb17:  // pred: ^bb16
    %152 = llvm.extractvalue %65[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %153 = llvm.mlir.constant(65536 : index) : i64
    %154 = llvm.mul %144, %153 overflow<nsw, nuw> : i64
    %155 = llvm.mlir.constant(256 : index) : i64
    %156 = llvm.mul %146, %155 overflow<nsw, nuw> : i64
    %157 = llvm.add %154, %156 overflow<nsw, nuw> : i64
    %158 = llvm.add %157, %150 overflow<nsw, nuw> : i64
    %159 = llvm.getelementptr inbounds|nuw %152[%158] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %160 = llvm.load %159 : !llvm.ptr -> f32
    %161 = llvm.extractvalue %96[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %162 = llvm.mlir.constant(65536 : index) : i64
    %163 = llvm.mul %144, %162 overflow<nsw, nuw> : i64
    %164 = llvm.mlir.constant(256 : index) : i64
    %165 = llvm.mul %150, %164 overflow<nsw, nuw> : i64
    %166 = llvm.add %163, %165 overflow<nsw, nuw> : i64
    %167 = llvm.add %166, %148 overflow<nsw, nuw> : i64
    %168 = llvm.getelementptr inbounds|nuw %161[%167] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %169 = llvm.load %168 : !llvm.ptr -> f32
    %170 = llvm.extractvalue %126[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %171 = llvm.mlir.constant(65536 : index) : i64
    %172 = llvm.mul %144, %171 overflow<nsw, nuw> : i64
    %173 = llvm.mlir.constant(256 : index) : i64
    %174 = llvm.mul %146, %173 overflow<nsw, nuw> : i64
    %175 = llvm.add %172, %174 overflow<nsw, nuw> : i64
    %176 = llvm.add %175, %148 overflow<nsw, nuw> : i64
    %177 = llvm.getelementptr inbounds|nuw %170[%176] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %178 = llvm.load %177 : !llvm.ptr -> f32
    %179 = llvm.fmul %160, %169 : f32
    %180 = llvm.fadd %178, %179 : f32
    %181 = llvm.extractvalue %126[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %182 = llvm.mlir.constant(65536 : index) : i64
    %183 = llvm.mul %144, %182 overflow<nsw, nuw> : i64
    %184 = llvm.mlir.constant(256 : index) : i64
    %185 = llvm.mul %146, %184 overflow<nsw, nuw> : i64
    %186 = llvm.add %183, %185 overflow<nsw, nuw> : i64
    %187 = llvm.add %186, %148 overflow<nsw, nuw> : i64
    %188 = llvm.getelementptr inbounds|nuw %181[%187] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %180, %188 : f32, !llvm.ptr
    %189 = llvm.add %150, %31 : i64
    llvm.br ^bb16(%189 : i64)
  ^bb18:  // pred: ^bb16
    %190 = llvm.add %148, %31 : i64
    llvm.br ^bb14(%190 : i64)
  ^bb19:  // pred: ^bb14
    %191 = llvm.add %146, %31 : i64
    llvm.br ^bb12(%191 : i64)
  ^bb20:  // pred: ^bb12
    %192 = llvm.add %144, %31 : i64
    llvm.br ^bb10(%192 : i64)
  ^bb21:  // pred: ^bb10
    %193 = llvm.extractvalue %13[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %194 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %195 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
    %196 = llvm.insertvalue %193, %195[0] : !llvm.struct<(ptr, ptr, i64)> 
    %197 = llvm.insertvalue %194, %196[1] : !llvm.struct<(ptr, ptr, i64)> 
    %198 = llvm.mlir.constant(0 : index) : i64
    %199 = llvm.insertvalue %198, %197[2] : !llvm.struct<(ptr, ptr, i64)> 
    %200 = llvm.extractvalue %13[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %201 = llvm.extractvalue %13[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %202 = llvm.extractvalue %13[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %203 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %204 = llvm.extractvalue %199[0] : !llvm.struct<(ptr, ptr, i64)> 
    %205 = llvm.extractvalue %199[1] : !llvm.struct<(ptr, ptr, i64)> 
    %206 = llvm.insertvalue %204, %203[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %207 = llvm.insertvalue %205, %206[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %208 = llvm.mlir.constant(0 : index) : i64
    %209 = llvm.insertvalue %208, %207[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %210 = llvm.mlir.constant(1 : index) : i64
    %211 = llvm.insertvalue %210, %209[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %212 = llvm.mlir.constant(256 : index) : i64
    %213 = llvm.insertvalue %212, %211[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %214 = llvm.mlir.constant(1 : index) : i64
    %215 = llvm.insertvalue %214, %213[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %216 = llvm.mlir.constant(256 : index) : i64
    %217 = llvm.insertvalue %216, %215[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %218 = llvm.mlir.constant(256 : index) : i64
    %219 = llvm.insertvalue %218, %217[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %220 = llvm.mlir.constant(1 : index) : i64
    %221 = llvm.insertvalue %220, %219[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %222 = llvm.mlir.constant(1 : index) : i64
    %223 = llvm.mlir.constant(256 : index) : i64
    %224 = llvm.mlir.constant(256 : index) : i64
    %225 = llvm.mlir.constant(1 : index) : i64
    %226 = llvm.mlir.constant(65536 : index) : i64
    %227 = llvm.mlir.constant(65536 : index) : i64
    %228 = llvm.mlir.zero : !llvm.ptr
    %229 = llvm.getelementptr %228[%227] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %230 = llvm.ptrtoint %229 : !llvm.ptr to i64
    %231 = llvm.mlir.constant(64 : index) : i64
    %232 = llvm.add %230, %231 : i64
    %233 = llvm.call @malloc(%232) : (i64) -> !llvm.ptr
    %234 = llvm.ptrtoint %233 : !llvm.ptr to i64
    %235 = llvm.mlir.constant(1 : index) : i64
    %236 = llvm.sub %231, %235 : i64
    %237 = llvm.add %234, %236 : i64
    %238 = llvm.urem %237, %231 : i64
    %239 = llvm.sub %237, %238 : i64
    %240 = llvm.inttoptr %239 : i64 to !llvm.ptr
    %241 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %242 = llvm.insertvalue %233, %241[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %243 = llvm.insertvalue %240, %242[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %244 = llvm.mlir.constant(0 : index) : i64
    %245 = llvm.insertvalue %244, %243[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %246 = llvm.insertvalue %222, %245[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %247 = llvm.insertvalue %223, %246[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %248 = llvm.insertvalue %224, %247[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %249 = llvm.insertvalue %226, %248[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %250 = llvm.insertvalue %224, %249[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %251 = llvm.insertvalue %225, %250[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.br ^bb22(%32 : i64)
  ^bb22(%252: i64):  // 2 preds: ^bb21, ^bb29
    %253 = llvm.icmp "slt" %252, %31 : i64
    llvm.cond_br %253, ^bb23, ^bb30
  ^bb23:  // pred: ^bb22
    llvm.br ^bb24(%32 : i64)
  ^bb24(%254: i64):  // 2 preds: ^bb23, ^bb28
    %255 = llvm.icmp "slt" %254, %30 : i64
    llvm.cond_br %255, ^bb25, ^bb29
  ^bb25:  // pred: ^bb24
    llvm.br ^bb26(%32 : i64)
  ^bb26(%256: i64):  // 2 preds: ^bb25, ^bb27
    %257 = llvm.icmp "slt" %256, %30 : i64
    llvm.cond_br %257, ^bb27, ^bb28
  ^bb27:  // pred: ^bb26
    %258 = llvm.extractvalue %126[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %259 = llvm.mlir.constant(65536 : index) : i64
    %260 = llvm.mul %252, %259 overflow<nsw, nuw> : i64
    %261 = llvm.mlir.constant(256 : index) : i64
    %262 = llvm.mul %254, %261 overflow<nsw, nuw> : i64
    %263 = llvm.add %260, %262 overflow<nsw, nuw> : i64
    %264 = llvm.add %263, %256 overflow<nsw, nuw> : i64
    %265 = llvm.getelementptr inbounds|nuw %258[%264] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %266 = llvm.load %265 : !llvm.ptr -> f32
    %267 = llvm.extractvalue %221[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %268 = llvm.mlir.constant(256 : index) : i64
    %269 = llvm.mul %252, %268 overflow<nsw, nuw> : i64
    %270 = llvm.mlir.constant(256 : index) : i64
    %271 = llvm.mul %32, %270 overflow<nsw, nuw> : i64
    %272 = llvm.add %269, %271 overflow<nsw, nuw> : i64
    %273 = llvm.add %272, %256 overflow<nsw, nuw> : i64
    %274 = llvm.getelementptr inbounds|nuw %267[%273] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %275 = llvm.load %274 : !llvm.ptr -> f32
    %276 = llvm.fadd %266, %275 : f32
    %277 = llvm.extractvalue %251[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %278 = llvm.mlir.constant(65536 : index) : i64
    %279 = llvm.mul %252, %278 overflow<nsw, nuw> : i64
    %280 = llvm.mlir.constant(256 : index) : i64
    %281 = llvm.mul %254, %280 overflow<nsw, nuw> : i64
    %282 = llvm.add %279, %281 overflow<nsw, nuw> : i64
    %283 = llvm.add %282, %256 overflow<nsw, nuw> : i64
    %284 = llvm.getelementptr inbounds|nuw %277[%283] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %276, %284 : f32, !llvm.ptr
    %285 = llvm.add %256, %31 : i64
    llvm.br ^bb26(%285 : i64)
  ^bb28:  // pred: ^bb26
    %286 = llvm.add %254, %31 : i64
    llvm.br ^bb24(%286 : i64)
  ^bb29:  // pred: ^bb24
    %287 = llvm.add %252, %31 : i64
    llvm.br ^bb22(%287 : i64)
  ^bb30:  // pred: ^bb22
    %288 = llvm.mlir.constant(1 : index) : i64
    %289 = llvm.mlir.constant(256 : index) : i64
    %290 = llvm.mlir.constant(256 : index) : i64
    %291 = llvm.mlir.constant(1 : index) : i64
    %292 = llvm.mlir.constant(65536 : index) : i64
    %293 = llvm.mlir.constant(65536 : index) : i64
    %294 = llvm.mlir.zero : !llvm.ptr
    %295 = llvm.getelementptr %294[%293] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %296 = llvm.ptrtoint %295 : !llvm.ptr to i64
    %297 = llvm.mlir.constant(64 : index) : i64
    %298 = llvm.add %296, %297 : i64
    %299 = llvm.call @malloc(%298) : (i64) -> !llvm.ptr
    %300 = llvm.ptrtoint %299 : !llvm.ptr to i64
    %301 = llvm.mlir.constant(1 : index) : i64
    %302 = llvm.sub %297, %301 : i64
    %303 = llvm.add %300, %302 : i64
    %304 = llvm.urem %303, %297 : i64
    %305 = llvm.sub %303, %304 : i64
    %306 = llvm.inttoptr %305 : i64 to !llvm.ptr
    %307 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
    %308 = llvm.insertvalue %299, %307[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %309 = llvm.insertvalue %306, %308[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %310 = llvm.mlir.constant(0 : index) : i64
    %311 = llvm.insertvalue %310, %309[2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %312 = llvm.insertvalue %288, %311[3, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %313 = llvm.insertvalue %289, %312[3, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %314 = llvm.insertvalue %290, %313[3, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %315 = llvm.insertvalue %292, %314[4, 0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %316 = llvm.insertvalue %290, %315[4, 1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %317 = llvm.insertvalue %291, %316[4, 2] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.br ^bb31(%32 : i64)
  ^bb31(%318: i64):  // 2 preds: ^bb30, ^bb38
    %319 = llvm.icmp "slt" %318, %31 : i64
    llvm.cond_br %319, ^bb32, ^bb39
  ^bb32:  // pred: ^bb31
    llvm.br ^bb33(%32 : i64)
  ^bb33(%320: i64):  // 2 preds: ^bb32, ^bb37
    %321 = llvm.icmp "slt" %320, %30 : i64
    llvm.cond_br %321, ^bb34, ^bb38
  ^bb34:  // pred: ^bb33
    llvm.br ^bb35(%32 : i64)
  ^bb35(%322: i64):  // 2 preds: ^bb34, ^bb36
    %323 = llvm.icmp "slt" %322, %30 : i64
    llvm.cond_br %323, ^bb36, ^bb37
  ^bb36:  // pred: ^bb35
    %324 = llvm.extractvalue %251[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %325 = llvm.mlir.constant(65536 : index) : i64
    %326 = llvm.mul %318, %325 overflow<nsw, nuw> : i64
    %327 = llvm.mlir.constant(256 : index) : i64
    %328 = llvm.mul %320, %327 overflow<nsw, nuw> : i64
    %329 = llvm.add %326, %328 overflow<nsw, nuw> : i64
    %330 = llvm.add %329, %322 overflow<nsw, nuw> : i64
    %331 = llvm.getelementptr inbounds|nuw %324[%330] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %332 = llvm.load %331 : !llvm.ptr -> f32
    %333 = llvm.intr.minimum(%332, %33) : (f32, f32) -> f32
    %334 = llvm.intr.maximum(%333, %34) : (f32, f32) -> f32
    %335 = llvm.extractvalue %317[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %336 = llvm.mlir.constant(65536 : index) : i64
    %337 = llvm.mul %318, %336 overflow<nsw, nuw> : i64
    %338 = llvm.mlir.constant(256 : index) : i64
    %339 = llvm.mul %320, %338 overflow<nsw, nuw> : i64
    %340 = llvm.add %337, %339 overflow<nsw, nuw> : i64
    %341 = llvm.add %340, %322 overflow<nsw, nuw> : i64
    %342 = llvm.getelementptr inbounds|nuw %335[%341] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %334, %342 : f32, !llvm.ptr
    %343 = llvm.add %322, %31 : i64
    llvm.br ^bb35(%343 : i64)
  ^bb37:  // pred: ^bb35
    %344 = llvm.add %320, %31 : i64
    llvm.br ^bb33(%344 : i64)
  ^bb38:  // pred: ^bb33
    %345 = llvm.add %318, %31 : i64
    llvm.br ^bb31(%345 : i64)
  ^bb39:  // pred: ^bb31
    %346 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %347 = llvm.extractvalue %317[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %348 = llvm.extractvalue %317[1] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    %349 = llvm.insertvalue %347, %346[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %350 = llvm.insertvalue %348, %349[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %351 = llvm.mlir.constant(0 : index) : i64
    %352 = llvm.insertvalue %351, %350[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %353 = llvm.mlir.constant(256 : index) : i64
    %354 = llvm.insertvalue %353, %352[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %355 = llvm.mlir.constant(256 : index) : i64
    %356 = llvm.insertvalue %355, %354[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %357 = llvm.mlir.constant(256 : index) : i64
    %358 = llvm.insertvalue %357, %356[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %359 = llvm.mlir.constant(1 : index) : i64
    %360 = llvm.insertvalue %359, %358[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %361 = llvm.mlir.constant(1 : index) : i64
    %362 = llvm.extractvalue %360[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %363 = llvm.mul %361, %362 : i64
    %364 = llvm.extractvalue %360[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %365 = llvm.mul %363, %364 : i64
    %366 = llvm.mlir.zero : !llvm.ptr
    %367 = llvm.getelementptr %366[1] : (!llvm.ptr) -> !llvm.ptr, f32
    %368 = llvm.ptrtoint %367 : !llvm.ptr to i64
    %369 = llvm.mul %365, %368 : i64
    %370 = llvm.extractvalue %360[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %371 = llvm.extractvalue %360[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %372 = llvm.getelementptr %370[%371] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %373 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %374 = llvm.extractvalue %7[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %375 = llvm.getelementptr %373[%374] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    "llvm.intr.memcpy"(%375, %372, %369) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    %376 = llvm.extractvalue %126[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.call @free(%376) : (!llvm.ptr) -> ()
    %377 = llvm.extractvalue %251[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.call @free(%377) : (!llvm.ptr) -> ()
    %378 = llvm.extractvalue %317[0] : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> 
    llvm.call @free(%378) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.load %arg0 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.extractvalue %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.extractvalue %0[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.extractvalue %0[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.extractvalue %0[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.extractvalue %0[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.extractvalue %0[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.extractvalue %0[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %9 = llvm.extractvalue %8[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %10 = llvm.extractvalue %8[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %11 = llvm.extractvalue %8[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.extractvalue %8[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.extractvalue %8[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.extractvalue %8[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.extractvalue %8[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.load %arg2 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %17 = llvm.extractvalue %16[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %18 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %19 = llvm.extractvalue %16[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %20 = llvm.extractvalue %16[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %21 = llvm.extractvalue %16[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %22 = llvm.load %arg3 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.extractvalue %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.extractvalue %22[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.extractvalue %22[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.extractvalue %22[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.extractvalue %22[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.extractvalue %22[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.extractvalue %22[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @matmul_bias_relu(%1, %2, %3, %4, %5, %6, %7, %9, %10, %11, %12, %13, %14, %15, %17, %18, %19, %20, %21, %23, %24, %25, %26, %27, %28, %29) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.return
  }
}
